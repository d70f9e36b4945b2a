import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("Recording files", .bounded)
struct RecordingFileTests {
    /// What `record` writes reads back as the same messages, byte for byte, with their offsets.
    @Test func recordingRoundTripsMessagesByteForByte() throws {
        let messages = [#"{"geometry":{"x":-111.90,"y":4.06E1},"attributes":{"speed":21.30,"name":"A\/B"}}"#, "not json", #"{"a":1}"#]
        var file = JSONWriter()
        RecordingWriter.appendHeader(RecordingHeader(service: "http://h/StreamServer", startedAt: 1_000, description: .object(JSONObject([("fields", .array([]))]))), to: &file)
        for (index, message) in messages.enumerated() {
            var message = message
            message.withUTF8 { RecordingWriter.appendLine(offsetMilliseconds: Int64(index * 10), message: UnsafeRawBufferPointer($0), to: &file) }
        }
        let recording = try RecordingFile(bytes: file.bytes)
        #expect(recording.layout == .recording)
        #expect(recording.header?.service == "http://h/StreamServer")
        #expect(recording.entries.map { String(decoding: $0.message, as: UTF8.self) } == messages)
        #expect(recording.entries.map(\.offsetMilliseconds) == [0, 10, 20])
        #expect(recording.entries.map(\.line) == [2, 3, 4])
    }

    /// Elements of a pretty-printed array are passed on as written, each with the line it starts on.
    @Test func arrayElementsKeepTheirTextAndLines() throws {
        let text = "[\n  {\"attributes\": {\"speed\": 1.50}},\n  {\"attributes\":\n {\"speed\": 2}}\n]\n"
        let recording = try RecordingFile(bytes: bytes(text))
        #expect(recording.layout == .featureArray)
        #expect(recording.entries.map { String(decoding: $0.message, as: UTF8.self) } == [#"{"attributes": {"speed": 1.50}}"#, "{\"attributes\":\n {\"speed\": 2}}"])
        #expect(recording.entries.map(\.line) == [2, 3])
    }

    /// Plain feature lines are taken as they are, blank lines skipped, line numbers kept.
    @Test func featureLines() throws {
        let recording = try RecordingFile(bytes: bytes("{\"a\":1}\r\n\n  {\"b\":2}  \n"))
        #expect(recording.layout == .featureLines)
        #expect(recording.entries.map { String(decoding: $0.message, as: UTF8.self) } == [#"{"a":1}"#, #"{"b":2}"#])
        #expect(recording.entries.map(\.line) == [1, 3])
    }

    /// Each unreadable file names what is wrong, and the line when there is one.
    @Test(arguments: [
        ("", RecordingError.empty),
        ("{\"recording\":\"entitystream\",\"version\":2,\"service\":\"s\",\"startedAt\":0,\"description\":{}}",
         .unsupportedVersion(line: 1, found: .int(2), supported: 1)),
        ("{\"recording\":\"entitystream\",\"version\":1,\"startedAt\":0,\"description\":{}}", .headerWithoutService(line: 1)),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"description\":{}}", .headerWithoutStartedAt(line: 1)),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0}", .headerWithoutDescription(line: 1)),
        ("\u{FEFF}", .empty),
    ] as [(String, RecordingError)])
    func unreadableFilesAreNamed(text: String, expected: RecordingError) {
        #expect(throws: expected) { try RecordingFile(bytes: bytes(text)) }
    }

    /// A JSON array that does not parse is refused at the line of the fault, and the message says so.
    @Test func invalidArrayNamesTheLine() {
        let error = #expect(throws: RecordingError.self) { try RecordingFile(bytes: bytes("[{\"a\":1},\n{\"b\":}]")) }
        guard case .arrayJSON(line: 2, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(error?.description.hasPrefix("line 2: the JSON array is invalid: ") == true)
        #expect(RecordingError.unsupportedVersion(line: 1, found: .int(2), supported: 1).description
            == "line 1: unsupported recording version 2 (this program reads version 1)")
    }

    /// A malformed line of a recording does not refuse the file: it becomes
    /// an entry carrying its problem, in its place, and every good line is
    /// kept with its offset (a bad "t" — fractional, huge, negative, beyond
    /// Int64 — is named as such, not as a missing "t").
    @Test(arguments: [
        (#"{"message":{}}"#, #"a recording line needs "t""#),
        (#"{"t":5}"#, #"a recording line needs "message" or "text""#),
        (#"{"t":5,"#, "not a recording line"),
        (#"{"t":0.5,"message":{}}"#, #""t" must be a whole number of milliseconds from 0 to 1000000000000, not 0.5"#),
        (#"{"t":1e300,"message":{}}"#, #""t" must be a whole number of milliseconds from 0 to 1000000000000, not 1e300"#),
        (#"{"t":-1,"message":{}}"#, #""t" must be a whole number of milliseconds from 0 to 1000000000000, not -1"#),
        (#"{"t":9223372036854775807,"message":{}}"#, #"not 9223372036854775807"#),
        (#"{"t":"5","message":{}}"#, #"not "5""#),
        (#"{"t":5,"text":7}"#, #""text" must be a JSON string"#),
    ] as [(String, String)])
    func badRecordingLinesAreKeptWithTheirProblem(line: String, problem: String) throws {
        let header = #"{"recording":"entitystream","version":1,"service":"s","startedAt":0,"description":{}}"#
        let text = [header, #"{"t":1,"message":{"a":1}}"#, line, #"{"t":3,"text":"x"}"#].joined(separator: "\n")
        let recording = try RecordingFile(bytes: bytes(text))
        #expect(recording.layout == .recording)
        #expect(recording.entries.map(\.line) == [2, 3, 4])
        #expect(recording.entries[0].problem == nil && recording.entries[0].offsetMilliseconds == 1)
        #expect(recording.entries[2].problem == nil && recording.entries[2].message == bytes("x"))
        let bad = recording.entries[1]
        #expect(bad.problem?.contains(problem) == true, "\(bad.problem ?? "no problem")")
        #expect(bad.message == bytes(line))
        #expect(recording.problemCount == 1)
    }

    /// Feature lines whose first line is itself a JSON array (an array
    /// message, as on a socket) are feature lines, not one invalid array; a
    /// one-line array and a pretty-printed array are arrays.
    @Test func firstLineArrayOfFeatureLines() throws {
        let lines = try RecordingFile(bytes: bytes("[{\"a\":1},{\"a\":2}]\n{\"a\":3}\n[{\"a\":4}]\n"))
        #expect(lines.layout == .featureLines)
        #expect(lines.entries.map { String(decoding: $0.message, as: UTF8.self) } == [#"[{"a":1},{"a":2}]"#, #"{"a":3}"#, #"[{"a":4}]"#])
        let oneLine = try RecordingFile(bytes: bytes("[{\"a\":1},{\"a\":2}]\n"))
        #expect(oneLine.layout == .featureArray)
        #expect(oneLine.entries.count == 2)
        let pretty = try RecordingFile(bytes: bytes("[{\"a\":1},\n{\"a\":2}]"))
        #expect(pretty.layout == .featureArray)
        #expect(pretty.entries.map(\.line) == [1, 2])
    }

    /// A UTF-8 byte-order mark before any layout is ignored: the file reads
    /// exactly as without it (same entries, same lines, same offsets).
    @Test(arguments: [
        "{\"a\":1}\n{\"b\":2}\n",
        "[{\"a\":1},\n{\"b\":2}]",
        "{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0,\"description\":{}}\n{\"t\":4,\"message\":{\"a\":1}}",
    ])
    func byteOrderMarkIsIgnored(text: String) throws {
        let plain = try RecordingFile(bytes: bytes(text))
        let marked = try RecordingFile(bytes: [0xEF, 0xBB, 0xBF] + bytes(text))
        #expect(marked.layout == plain.layout)
        #expect(marked.entries == plain.entries)
    }
}
