/// Reassembles libwebsockets' receive chunks into whole messages and
/// enforces the maximum message size.
///
/// libwebsockets delivers whatever bytes arrived: a message may come in many
/// chunks (WebSocket fragments, or one large frame split by the receive
/// buffer). Complete messages are appended to a ``TurnBatch``. Used only on
/// the service thread.
struct MessageAssembler {
    enum Outcome { case incomplete, complete, tooLarge }

    let maximumMessageSize: Int
    private var partial: [UInt8] = []
    private var partialIsBinary = false
    private var assembling = false

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Adds one chunk. On `.tooLarge` the partial message is discarded and the
    /// caller must close the connection.
    mutating func append(_ chunk: UnsafeRawBufferPointer, isFirst: Bool, isFinal: Bool, isBinary: Bool,
                         into batch: inout TurnBatch) -> Outcome {
        if isFirst && isFinal && !assembling {
            guard chunk.count <= maximumMessageSize else { return .tooLarge }
            batch.append(chunk, isBinary: isBinary)
            return .complete
        }
        if !assembling {
            assembling = true
            partialIsBinary = isBinary
            partial.removeAll(keepingCapacity: true)
        }
        guard partial.count + chunk.count <= maximumMessageSize else {
            assembling = false
            partial = []
            return .tooLarge
        }
        partial.append(contentsOf: chunk)
        guard isFinal else { return .incomplete }
        assembling = false
        partial.withUnsafeBytes { batch.append($0, isBinary: partialIsBinary) }
        if partial.capacity > 1 << 20 { partial = [] } else { partial.removeAll(keepingCapacity: true) }
        return .complete
    }
}

/// The complete messages received during one service turn, before hand-off.
struct TurnBatch {
    var bytes: [UInt8] = []
    var ends: [Int] = []
    var binaryIndices: Set<Int> = []

    var isEmpty: Bool { ends.isEmpty }

    mutating func append(_ message: UnsafeRawBufferPointer, isBinary: Bool) {
        bytes.append(contentsOf: message)
        if isBinary { binaryIndices.insert(ends.count) }
        ends.append(bytes.count)
    }
}
