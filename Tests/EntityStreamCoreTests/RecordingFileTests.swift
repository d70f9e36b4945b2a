import EntityStreamCore
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("Recording files")
struct RecordingFileTests {
    /// What `record` writes reads back as the same messages, byte for byte, with their offsets.
    @Test(.timeLimit(.minutes(1))) func recordingRoundTripsMessagesByteForByte() throws {
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
    @Test(.timeLimit(.minutes(1))) func arrayElementsKeepTheirTextAndLines() throws {
        let text = "[\n  {\"attributes\": {\"speed\": 1.50}},\n  {\"attributes\":\n {\"speed\": 2}}\n]\n"
        let recording = try RecordingFile(bytes: bytes(text))
        #expect(recording.layout == .featureArray)
        #expect(recording.entries.map { String(decoding: $0.message, as: UTF8.self) } == [#"{"attributes": {"speed": 1.50}}"#, "{\"attributes\":\n {\"speed\": 2}}"])
        #expect(recording.entries.map(\.line) == [2, 3])
    }

    /// Plain feature lines are taken as they are, blank lines skipped, line numbers kept.
    @Test(.timeLimit(.minutes(1))) func featureLines() throws {
        let recording = try RecordingFile(bytes: bytes("{\"a\":1}\r\n\n  {\"b\":2}  \n"))
        #expect(recording.layout == .featureLines)
        #expect(recording.entries.map { String(decoding: $0.message, as: UTF8.self) } == [#"{"a":1}"#, #"{"b":2}"#])
        #expect(recording.entries.map(\.line) == [1, 3])
    }

    /// Each unreadable file names what is wrong, and the line when there is one.
    @Test(.timeLimit(.minutes(1)), arguments: [
        ("", "the file is empty"),
        ("[{\"a\":1},\n{\"b\":}]", "line 2: the JSON array is invalid"),
        ("{\"recording\":\"entitystream\",\"version\":2,\"service\":\"s\",\"startedAt\":0,\"description\":{}}", "line 1: unsupported recording version 2"),
        ("{\"recording\":\"entitystream\",\"version\":1,\"startedAt\":0,\"description\":{}}", "line 1: the recording header has no \"service\""),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"description\":{}}", "line 1: the recording header has no \"startedAt\""),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0}", "line 1: the recording header has no service description"),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0,\"description\":{}}\n{\"message\":{}}", "line 2: a recording line needs \"t\""),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0,\"description\":{}}\n{\"t\":5}", "line 2: a recording line needs \"message\" or \"text\""),
        ("{\"recording\":\"entitystream\",\"version\":1,\"service\":\"s\",\"startedAt\":0,\"description\":{}}\n{\"t\":5,", "line 2: not a recording line"),
    ] as [(String, String)])
    func unreadableFilesAreNamed(text: String, expected: String) {
        #expect(throws: RecordingError.self) { try RecordingFile(bytes: bytes(text)) }
        do {
            _ = try RecordingFile(bytes: bytes(text))
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error)")
        }
    }
}
