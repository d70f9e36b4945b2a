#if canImport(Glibc)
import Glibc
#endif
import EntityStreamModel

/// Splits a recording file into messages as its bytes arrive, chunk by
/// chunk, so a file of any size is played with bounded memory: what it keeps
/// between chunks is the unfinished last line (or array element), never
/// the file.
///
/// It recognises the same three layouts as ``RecordingFile``, by the same
/// rules, from the first bytes that are not white space (a leading UTF-8
/// byte-order mark is ignored): `[` starts a JSON array of features (split
/// into its top-level elements, not validated here) when the file is that one
/// line, or when its first line is not a JSON text by itself (a
/// pretty-printed array) — otherwise the file is feature lines whose first
/// line is an array message; a line that is an `entitystream` recording
/// header starts a recording (each later line `{"t":…,"message"|"text":…}`);
/// anything else is Esri feature JSON lines. Empty lines are skipped; line
/// numbers count from 1 as in an editor. Messages reach the decoder as they
/// stand in the file, so a malformed message is reported there, as on a live
/// socket; a malformed line of a recording is a message carrying its
/// ``Batch/problems`` entry (the line as it stands, and why it cannot be
/// played), to be reported in its place while the rest plays. A line longer
/// than `maximumMessageBytes` is skipped the same way: it is never held
/// whole (its bytes are dropped as they come), and an empty message in its
/// place carries a problem naming its size. Throws ``RecordingError`` naming
/// the line only for what refuses the file: an empty file, an unusable
/// header, an invalid array, and an array element longer than
/// `maximumMessageBytes`. A value type; not thread-safe.
public struct RecordingChunkParser: Sendable {
    /// Messages parsed from one or more chunks: bytes back to back, with
    /// their end offsets, recorded offsets (recordings only) and lines.
    public struct Batch: Sendable {
        public var bytes: [UInt8] = []
        public var ends: [Int] = []
        /// Milliseconds after the recording started (nil outside recordings).
        public var offsets: [Int64?] = []
        /// 1-based line where each message starts.
        public var lines: [Int] = []
        /// Why each message cannot be played (a malformed recording line, then
        /// its bytes are the line as it stands), or nil for a playable one.
        public var problems: [String?] = []

        public init() {}

        public var count: Int { ends.count }
        public var isEmpty: Bool { ends.isEmpty }

        /// The range of message `index` in ``bytes``.
        public func range(_ index: Int) -> Range<Int> { (index == 0 ? 0 : ends[index - 1])..<ends[index] }

        public mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
            problems.removeAll(keepingCapacity: true)
        }

        /// Appends an entry read some other way (standard input, a CSV track).
        public mutating func append(_ entry: RecordingFile.Entry) {
            entry.message.withUnsafeBytes { append($0, offset: entry.offsetMilliseconds, line: entry.line, problem: entry.problem) }
        }

        mutating func append(_ message: UnsafeRawBufferPointer, offset: Int64?, line: Int, problem: String? = nil) {
            bytes.append(contentsOf: message)
            ends.append(bytes.count)
            offsets.append(offset)
            lines.append(line)
            problems.append(problem)
        }
    }

    public let maximumMessageBytes: Int
    /// The layout, once the first content has been seen.
    public private(set) var layout: RecordingFile.Layout?
    /// The header of a recording.
    public private(set) var header: RecordingHeader?

    private var carry: [UInt8] = []
    /// Line number of the first byte of `carry`.
    private var carryLine = 1
    private var array = ArrayScan()
    private var finished = false
    /// Nothing seen yet: a byte-order mark may still come.
    private var atFileStart = true
    /// While a file starting with `[` waits for its first newline: how far `carry` was searched.
    private var newlineSearchedUpTo = 0
    /// Lines: how much of `carry` is known to hold no newline (so a long line is searched once).
    private var lineSearchedUpTo = 0
    /// A line over the limit being skipped: its number and the bytes dropped so far.
    private var skipping: (line: Int, bytes: Int)?

    /// Where an array split stands between chunks (within it, the scan
    /// always restarts at an element's start, at the top level).
    private struct ArrayScan {
        var opened = false
        var closed = false
    }

    public init(maximumMessageBytes: Int = 64 << 20) {
        self.maximumMessageBytes = maximumMessageBytes
    }

    /// Parses `chunk` (the next bytes of the file), appending the messages it
    /// completes to `batch`. Give `isLast` with the final chunk (it may be empty).
    public mutating func append(_ chunk: UnsafeRawBufferPointer, isLast: Bool, into batch: inout Batch) throws(RecordingError) {
        guard !finished else { return }
        carry.append(contentsOf: chunk)
        if atFileStart {
            // A UTF-8 byte-order mark (as some editors write) is not part of the first line.
            let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
            if carry.count < mark.count && mark.starts(with: carry) && !isLast { return }
            if carry.starts(with: mark) { carry.removeFirst(mark.count) }
            atFileStart = false
        }
        if layout == nil {
            guard let first = carry.firstIndex(where: { !Self.isSpace($0) }) else {
                if isLast { finished = true; throw .empty }
                return
            }
            if carry[first] == UInt8(ascii: "[") {
                guard let decided = arrayLayout(from: first, isLast: isLast) else { return }
                layout = decided
            }
        }
        if layout == .featureArray {
            try scanArray(isLast: isLast, into: &batch)
        } else {
            try scanLines(isLast: isLast, into: &batch)
        }
        if isLast {
            finished = true
            if layout == nil { throw .empty }
        }
    }

    /// Whether a file starting with `[` (at `first` in `carry`) is one JSON
    /// array or feature lines (see the type's contract), or nil until more
    /// bytes tell. A first line longer than `maximumMessageBytes` cannot be
    /// a feature line: it is taken for an array (whose elements are bounded).
    private mutating func arrayLayout(from first: Int, isLast: Bool) -> RecordingFile.Layout? {
        let from = max(first, newlineSearchedUpTo)
        guard let newline = carry.withUnsafeBytes({ Self.firstNewline(in: $0, from: from) }) else {
            newlineSearchedUpTo = carry.count
            return isLast || carry.count > maximumMessageBytes ? .featureArray : nil
        }
        newlineSearchedUpTo = newline
        var end = newline
        while end > first, Self.isSpace(carry[end - 1]) { end -= 1 }
        guard (try? JSONParser.validate(Array(carry[first..<end]))) != nil else { return .featureArray }
        if carry[(newline + 1)...].contains(where: { !Self.isSpace($0) }) { return .featureLines }
        return isLast || carry.count > maximumMessageBytes ? .featureArray : nil
    }

    // MARK: Lines

    private mutating func scanLines(isLast: Bool, into batch: inout Batch) throws(RecordingError) {
        if skipping != nil && !skipToNextLine(isLast: isLast, into: &batch) { return }
        var start = 0
        var lineNumber = carryLine
        let count = carry.count
        var failure: RecordingError?
        let searchedUpTo = lineSearchedUpTo
        carry.withUnsafeBytes { all in
            while start < count {
                guard let newline = Self.firstNewline(in: all, from: start == 0 ? searchedUpTo : start) else { break }
                do throws(RecordingError) {
                    try takeLine(UnsafeRawBufferPointer(rebasing: all[start..<newline]), number: lineNumber, into: &batch)
                } catch {
                    failure = error
                    return
                }
                start = newline + 1
                lineNumber += 1
            }
            if isLast && start < count && failure == nil {
                do throws(RecordingError) {
                    try takeLine(UnsafeRawBufferPointer(rebasing: all[start..<count]), number: lineNumber, into: &batch)
                } catch {
                    failure = error
                }
                start = count
            }
        }
        if let failure { throw failure }
        carry.removeFirst(start)
        carryLine = lineNumber
        lineSearchedUpTo = carry.count
        if carry.count > maximumMessageBytes {
            // Too long to keep: drop it as it comes, and say so once its end is found.
            if layout == nil { layout = .featureLines }
            skipping = (carryLine, carry.count)
            carry.removeAll(keepingCapacity: false)
            lineSearchedUpTo = 0
        }
    }

    /// Drops the rest of a line over the limit, up to its newline; once found,
    /// puts the skipped line in the batch (an empty message with its problem)
    /// and returns true: the lines after it can be read. False while the line goes on.
    private mutating func skipToNextLine(isLast: Bool, into batch: inout Batch) -> Bool {
        guard var skip = skipping else { return true }
        let newline = carry.withUnsafeBytes { Self.firstNewline(in: $0, from: 0) }
        guard let newline else {
            skip.bytes += carry.count
            carry.removeAll(keepingCapacity: true)
            skipping = skip
            if isLast { reportSkipped(into: &batch) }
            return false
        }
        skip.bytes += newline
        carry.removeFirst(newline + 1)
        skipping = skip
        reportSkipped(into: &batch)
        carryLine = skip.line + 1
        return true
    }

    /// The line being skipped, as an empty message carrying why.
    private mutating func reportSkipped(into batch: inout Batch) {
        guard let skip = skipping else { return }
        skipping = nil
        batch.append(UnsafeRawBufferPointer(start: nil, count: 0), offset: nil, line: skip.line,
                     problem: "a line of \(skip.bytes) bytes, longer than the limit of \(maximumMessageBytes) bytes: skipped")
    }

    private mutating func takeLine(_ raw: UnsafeRawBufferPointer, number: Int, into batch: inout Batch) throws(RecordingError) {
        var lower = 0
        var upper = raw.count
        while upper > lower, Self.isSpace(raw[upper - 1]) { upper -= 1 }
        while lower < upper, Self.isSpace(raw[lower]) { lower += 1 }
        guard lower < upper else { return }
        let line = UnsafeRawBufferPointer(rebasing: raw[lower..<upper])
        if line.count > maximumMessageBytes {
            if layout == nil { layout = .featureLines }
            skipping = (number, raw.count)
            reportSkipped(into: &batch)
            return
        }
        switch layout {
        case nil:
            if let header = try RecordingHeader(line: Array(line), lineNumber: number) {
                self.header = header
                layout = .recording
            } else {
                layout = .featureLines
                batch.append(line, offset: nil, line: number)
            }
        case .recording?:
            batch.append(RecordingFile.recordingEntry(Array(line)[...], line: number))
        case .featureLines?, .featureArray?, .csvTrack?:
            batch.append(line, offset: nil, line: number)
        }
    }

    // MARK: Array

    /// Splits `carry` at the array's top-level commas; keeps the unfinished
    /// element (from its start, rescanned with the next chunk).
    private mutating func scanArray(isLast: Bool, into batch: inout Batch) throws(RecordingError) {
        var opened = array.opened
        var closed = array.closed
        // `carry` starts before '[', at an element's start (top level), or after ']'.
        var depth = 0
        var inString = false
        var escaped = false
        var line = carryLine
        var elementStart = 0
        var elementLine = carryLine
        var failure: RecordingError?
        let count = carry.count
        carry.withUnsafeBytes { all in
            func emit(_ end: Int) {
                var lower = elementStart
                var upper = end
                var startLine = elementLine
                while upper > lower, Self.isSpace(all[upper - 1]) { upper -= 1 }
                while lower < upper, Self.isSpace(all[lower]) {
                    if all[lower] == UInt8(ascii: "\n") { startLine += 1 }
                    lower += 1
                }
                if lower < upper { batch.append(UnsafeRawBufferPointer(rebasing: all[lower..<upper]), offset: nil, line: startLine) }
            }
            for index in 0..<count {
                let byte = all[index]
                if closed {
                    if !Self.isSpace(byte) {
                        failure = .textAfterArray(line: line)
                        return
                    }
                } else if !opened {
                    if byte == UInt8(ascii: "[") {
                        opened = true
                        elementStart = index + 1
                        elementLine = line
                    } else if !Self.isSpace(byte) {
                        failure = .arrayNotOpened(line: line)
                        return
                    }
                } else if inString {
                    if escaped { escaped = false }
                    else if byte == UInt8(ascii: "\\") { escaped = true }
                    else if byte == UInt8(ascii: "\"") { inString = false }
                } else {
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        if depth == 0 && byte == UInt8(ascii: "]") {
                            emit(index)
                            closed = true
                        } else if depth == 0 {
                            failure = .arrayUnbalanced(line: line)
                            return
                        } else {
                            depth -= 1
                        }
                    case UInt8(ascii: ","):
                        if depth == 0 {
                            emit(index)
                            elementStart = index + 1
                            elementLine = line
                        }
                    default: break
                    }
                }
                if byte == UInt8(ascii: "\n") { line += 1 }
            }
        }
        if let failure { throw failure }
        array.opened = opened
        array.closed = closed
        if opened && !closed {
            if isLast { throw .arrayNotClosed(line: line) }
            carry.removeFirst(elementStart)
            carryLine = elementLine
            if carry.count > maximumMessageBytes {
                throw .elementTooLong(line: carryLine, limit: maximumMessageBytes)
            }
        } else {
            carry.removeAll(keepingCapacity: true)
            carryLine = line
        }
    }

    // MARK: Helpers

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    private static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
