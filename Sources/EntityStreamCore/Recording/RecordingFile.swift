import EntityStreamModel
/// A recorded stream, read from bytes: what the simulator and
/// `entitystream replay` play back.
///
/// Three layouts are recognised (a leading UTF-8 byte-order mark is ignored):
/// - the format `entitystream record` writes (``RecordingWriter``): a header
///   line carrying the service description, then one line per message with
///   its time offset;
/// - Esri feature JSON lines (one message per line, as Esri's AIS sample
///   file; a line may itself be a JSON array of features, as on a socket);
/// - one JSON array of features, possibly over many lines. A file starting
///   with `[` is this layout when it is one line, or when its first line is
///   not a JSON text by itself (a pretty-printed array); otherwise it is
///   feature lines.
///
/// ``init(bytes:)`` throws ``RecordingError`` naming the line when the file
/// is empty, its header is unusable or its array is invalid. A malformed
/// line of a recording does not refuse the file: its ``Entry`` carries the
/// ``Entry/problem`` (say, `"t"` that is not a whole number of milliseconds
/// within ``TimeBounds/milliseconds``), to be reported where it stands as
/// the file plays, and the other lines play. Lines are not decoded here;
/// each ``Entry`` is the message's bytes exactly as they stand in the file
/// (as the service sent them), so malformed messages reach the decoder (and
/// are reported there) like on a live socket.
public struct RecordingFile: Sendable {
    public enum Layout: String, Sendable, Hashable {
        case recording = "entitystream recording"
        case featureLines = "Esri feature JSON lines"
        case featureArray = "JSON array of features"
        case csvTrack = "CSV track"

        /// The entries carry time offsets (recordings, CSV tracks): `--speed` applies.
        public var isTimed: Bool { self == .recording || self == .csvTrack }
    }

    /// One message to play: its bytes and, in recordings, its time offset.
    public struct Entry: Sendable, Hashable {
        /// Milliseconds after the recording started, when known.
        public var offsetMilliseconds: Int64?
        public var message: [UInt8]
        /// 1-based line in the file, for error messages.
        public var line: Int
        /// Why this line of a recording cannot be played (then `message`
        /// holds the line as it stands); nil for a playable message.
        public var problem: String?

        public init(offsetMilliseconds: Int64?, message: [UInt8], line: Int, problem: String? = nil) {
            self.offsetMilliseconds = offsetMilliseconds
            self.message = message
            self.line = line
            self.problem = problem
        }
    }

    public let layout: Layout
    /// The header of a recording (nil for plain feature files).
    public let header: RecordingHeader?
    public let entries: [Entry]

    /// A file made of entries read some other way (a CSV track).
    public init(layout: Layout, header: RecordingHeader? = nil, entries: [Entry]) {
        self.layout = layout
        self.header = header
        self.entries = entries
    }

    /// Lines with a problem (malformed recording lines).
    public var problemCount: Int { entries.count { $0.problem != nil } }

    public init(bytes: [UInt8]) throws(RecordingError) {
        // A UTF-8 byte-order mark (as some editors write) is not part of the first line.
        let bomLength = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var lines: [(number: Int, range: Range<Int>)] = []
        var start = bomLength
        var number = 1
        for index in bytes.indices.dropFirst(bomLength) where bytes[index] == UInt8(ascii: "\n") {
            lines.append((number, start..<index))
            start = index + 1
            number += 1
        }
        if start < bytes.count { lines.append((number, start..<bytes.count)) }
        lines = lines.compactMap { line in
            var range = line.range
            while let last = range.last, bytes[last] == UInt8(ascii: "\r") || bytes[last] == UInt8(ascii: " ") || bytes[last] == UInt8(ascii: "\t") { range = range.lowerBound..<last }
            // The same white space as RecordingChunkParser trims at both ends (a lone "\r" at a line's start included).
            while let first = range.first, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") || bytes[first] == UInt8(ascii: "\r") {
                range = (first + 1)..<range.upperBound
            }
            return range.isEmpty ? nil : (line.number, range)
        }
        guard let first = lines.first else { throw .empty }

        if bytes[first.range.lowerBound] == UInt8(ascii: "["),
           lines.count == 1 || (try? JSONParser.validate(Array(bytes[first.range]))) == nil {
            let ranges: [Range<Int>]
            let parsed = bytes.withUnsafeBytes { all in
                Result { () throws(JSONError) in try JSONParser.elementRanges(ofArray: UnsafeRawBufferPointer(rebasing: all[bomLength...])) }
            }
            do { ranges = try parsed.get().map { ($0.lowerBound + bomLength)..<($0.upperBound + bomLength) } } catch {
                throw .arrayJSON(line: Self.lineNumber(of: error.offset + bomLength, in: bytes), error)
            }
            var line = 1
            var scanned = 0
            entries = ranges.map { range in
                line += bytes[scanned..<range.lowerBound].count { $0 == UInt8(ascii: "\n") }
                scanned = range.lowerBound
                return Entry(offsetMilliseconds: nil, message: Array(bytes[range]), line: line)
            }
            layout = .featureArray
            header = nil
            return
        }

        if let header = try RecordingHeader(line: Array(bytes[first.range]), lineNumber: first.number) {
            var entries: [Entry] = []
            entries.reserveCapacity(lines.count - 1)
            for line in lines.dropFirst() {
                entries.append(Self.recordingEntry(bytes[line.range], line: line.number))
            }
            self.entries = entries
            self.header = header
            layout = .recording
            return
        }

        entries = lines.map { Entry(offsetMilliseconds: nil, message: Array(bytes[$0.range]), line: $0.number) }
        header = nil
        layout = .featureLines
    }

    /// `{"t":<ms>,"message":<json>}` or `{"t":<ms>,"text":"<string>"}`. The
    /// message is taken byte for byte as it stands in the file; a line that
    /// is not like this is an entry with its ``Entry/problem``.
    package static func recordingEntry(_ line: ArraySlice<UInt8>, line number: Int) -> Entry {
        let bytes = Array(line)
        func problem(_ text: String) -> Entry { Entry(offsetMilliseconds: nil, message: bytes, line: number, problem: text) }
        let members: [(key: String, value: Range<Int>)]
        do { members = try JSONParser.memberRanges(ofObject: bytes) } catch {
            return problem("not a recording line: \(error)")
        }
        func member(_ key: String) -> ArraySlice<UInt8>? { members.last { $0.key == key }.map { bytes[$0.value] } }
        guard let time = member("t") else {
            return problem("a recording line needs \"t\" (milliseconds since the start)")
        }
        let offset: Int64
        switch try? JSONParser.parse(Array(time)) {
        case .int(let whole)? where TimeBounds.milliseconds.contains(whole):
            offset = whole
        case .double(let real)? where real == real.rounded() && real >= 0 && real <= Double(TimeBounds.maximumMilliseconds):
            offset = Int64(real)
        default:
            let text = String(decoding: time.prefix(40), as: UTF8.self)
            return problem("\"t\" must be a whole number of milliseconds from 0 to \(TimeBounds.maximumMilliseconds), not \(text)")
        }
        if let textMember = member("text") {
            guard let text = (try? JSONParser.parse(Array(textMember)))?.stringValue else {
                return problem("\"text\" must be a JSON string (the message as received)")
            }
            return Entry(offsetMilliseconds: offset, message: Array(text.utf8), line: number)
        }
        guard let message = member("message") else {
            return problem("a recording line needs \"message\" or \"text\"")
        }
        return Entry(offsetMilliseconds: offset, message: Array(message), line: number)
    }

    /// The 1-based line of byte `offset`.
    private static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<min(offset, bytes.count)].count { $0 == UInt8(ascii: "\n") }
    }
}
