/// Every complete WebSocket message that arrived in one hand-off, stored
/// back to back in one byte array.
///
/// A batch is what crosses from the service thread into Swift concurrency:
/// one batch per hand-off instead of one hand-off per message. Messages are
/// read as byte slices (no copy) or with ``withMessageBytes(_:)`` as raw
/// buffers for parsers.
public struct MessageBatch: Sendable, RandomAccessCollection {
    /// The concatenated message bytes.
    public let bytes: [UInt8]
    /// `ends[i]` is the end offset (exclusive) of message `i` in ``bytes``.
    public let ends: [Int]
    /// Indices of binary (rather than text) messages; usually empty.
    public let binaryIndices: Set<Int>

    public init(bytes: [UInt8], ends: [Int], binaryIndices: Set<Int> = []) {
        self.bytes = bytes
        self.ends = ends
        self.binaryIndices = binaryIndices
    }

    /// A batch of text messages, for tests and in-process producers.
    public init(texts: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for text in texts {
            bytes.append(contentsOf: text.utf8)
            ends.append(bytes.count)
        }
        self.init(bytes: bytes, ends: ends)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ends.count }

    /// The bytes of message `index`.
    public subscript(index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }

    /// Message `index` decoded as UTF-8 text.
    public func text(at index: Int) -> String {
        String(decoding: self[index], as: UTF8.self)
    }

    /// True when message `index` arrived as a binary message.
    public func isBinary(_ index: Int) -> Bool { binaryIndices.contains(index) }

    /// Calls `body` with each message's bytes in order, without copying.
    public func withMessageBytes(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            var start = 0
            for (index, end) in ends.enumerated() {
                try body(index, UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}
