/// A recorded stream, read from bytes: what the simulator and
/// `entitystream replay` play back.
///
/// Three layouts are recognised:
/// - the format `entitystream record` writes (``RecordingWriter``): a header
///   line carrying the service description, then one line per message with
///   its time offset;
/// - Esri feature JSON lines (one feature per line, as Esri's AIS sample file);
/// - one JSON array of features.
///
/// ``init(bytes:)`` throws ``RecordingError`` naming the line when the layout
/// cannot be recognised or a recording line is malformed. Lines are not
/// decoded here; each ``Entry`` is the message's bytes exactly as they stand
/// in the file (as the service sent them), so malformed messages reach the
/// decoder (and are reported there) like on a live socket.
public struct RecordingFile: Sendable {
    public enum Layout: String, Sendable, Hashable {
        case recording = "entitystream recording"
        case featureLines = "Esri feature JSON lines"
        case featureArray = "JSON array of features"
    }

    /// One message to play: its bytes and, in recordings, its time offset.
    public struct Entry: Sendable, Hashable {
        /// Milliseconds after the recording started, when known.
        public var offsetMilliseconds: Int64?
        public var message: [UInt8]
        /// 1-based line in the file, for error messages.
        public var line: Int
    }

    public let layout: Layout
    /// The header of a recording (nil for plain feature files).
    public let header: RecordingHeader?
    public let entries: [Entry]

    public init(bytes: [UInt8]) throws(RecordingError) {
        var lines: [(number: Int, range: Range<Int>)] = []
        var start = 0
        var number = 1
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append((number, start..<index))
            start = index + 1
            number += 1
        }
        if start < bytes.count { lines.append((number, start..<bytes.count)) }
        lines = lines.compactMap { line in
            var range = line.range
            while let last = range.last, bytes[last] == UInt8(ascii: "\r") || bytes[last] == UInt8(ascii: " ") || bytes[last] == UInt8(ascii: "\t") { range = range.lowerBound..<last }
            while let first = range.first, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { range = (first + 1)..<range.upperBound }
            return range.isEmpty ? nil : (line.number, range)
        }
        guard let first = lines.first else { throw RecordingError(line: nil, "the file is empty") }

        if bytes[first.range.lowerBound] == UInt8(ascii: "[") {
            let ranges: [Range<Int>]
            do { ranges = try JSONParser.elementRanges(ofArray: bytes) } catch {
                throw RecordingError(line: Self.lineNumber(of: error.offset, in: bytes), "the JSON array is invalid: \(error)")
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
                entries.append(try Self.recordingEntry(bytes[line.range], line: line.number))
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
    /// message is taken byte for byte as it stands in the file.
    static func recordingEntry(_ line: ArraySlice<UInt8>, line number: Int) throws(RecordingError) -> Entry {
        let bytes = Array(line)
        let members: [(key: String, value: Range<Int>)]
        do { members = try JSONParser.memberRanges(ofObject: bytes) } catch {
            throw RecordingError(line: number, "not a recording line: \(error)")
        }
        func member(_ key: String) -> ArraySlice<UInt8>? { members.last { $0.key == key }.map { bytes[$0.value] } }
        guard let offset = member("t").flatMap({ try? JSONParser.parse(Array($0)).intValue }) else {
            throw RecordingError(line: number, "a recording line needs \"t\" (milliseconds since the start)")
        }
        if let text = member("text").flatMap({ try? JSONParser.parse(Array($0)).stringValue }) {
            return Entry(offsetMilliseconds: offset, message: Array(text.utf8), line: number)
        }
        guard let message = member("message") else {
            throw RecordingError(line: number, "a recording line needs \"message\" or \"text\"")
        }
        return Entry(offsetMilliseconds: offset, message: Array(message), line: number)
    }

    /// The 1-based line of byte `offset`.
    private static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<min(offset, bytes.count)].count { $0 == UInt8(ascii: "\n") }
    }
}
