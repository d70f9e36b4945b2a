/// Splits a byte stream into lines, each a whole command however it was cut
/// into reads, with a bound on what one line may hold.
///
/// ``append(_:)`` takes the next bytes and returns the lines they completed,
/// in order; ``finish()`` returns the last line when the input did not end
/// with a line break. A line is everything up to `\n` (a `\r` before it is
/// kept; JSON readers take it as whitespace); empty lines are skipped unless
/// `keepingEmptyLines` (for readers that number lines). A line
/// longer than ``maximumLength`` bytes is not kept — its bytes are counted,
/// not stored, so memory stays bounded — and comes out as
/// ``StandardInputLine/tooLong(byteCount:)``. A value type; linear time.
public struct InputLineSplitter: Sendable {
    public let maximumLength: Int
    /// Empty lines come out as empty `.line`s instead of being skipped.
    public let keepingEmptyLines: Bool
    private var pending: [UInt8] = []
    /// Bytes of the current line once it went past the limit (nil while within it).
    private var overflowCount: Int?

    public init(maximumLength: Int, keepingEmptyLines: Bool = false) {
        self.maximumLength = max(1, maximumLength)
        self.keepingEmptyLines = keepingEmptyLines
    }

    public mutating func append(_ bytes: some Collection<UInt8>) -> [StandardInputLine] {
        var lines: [StandardInputLine] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if let line = endLine() { lines.append(line) }
            } else if let count = overflowCount {
                overflowCount = count + 1
            } else if pending.count == maximumLength {
                overflowCount = pending.count + 1
                pending = []
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The unterminated last line, if any.
    public mutating func finish() -> StandardInputLine? {
        pending.isEmpty && overflowCount == nil ? nil : endLine()
    }

    private mutating func endLine() -> StandardInputLine? {
        defer {
            pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
            overflowCount = nil
        }
        if let count = overflowCount { return .tooLong(byteCount: count) }
        return pending.isEmpty && !keepingEmptyLines ? nil : .line(pending)
    }
}

/// One line of standard input: a command, or a line too long to take.
public enum StandardInputLine: Sendable, Hashable {
    case line([UInt8])
    /// A line of this many bytes, over the limit; its content was not kept.
    case tooLong(byteCount: Int)
}
