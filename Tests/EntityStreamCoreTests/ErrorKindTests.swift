import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

@Suite("Errors classified by kind, not by message text", .bounded)
struct ErrorKindTests {
    static func jsonError(_ text: String) -> JSONError? {
        do { _ = try JSONParser.parse(Array(text.utf8)); return nil } catch { return error }
    }

    /// A text cut inside a string, an escape or before a value ends early; a wrong byte is invalid.
    @Test func jsonErrorKinds() {
        let cuts = [#"{"a":"abc"#, #"{"a":"ab\"#, #"{"a":"\u00"#, #"{"a":1"#, #"{"a":"#, ""]
        for text in cuts {
            #expect(Self.jsonError(text)?.kind == .endedEarly, "\(text)")
        }
        for text in [#"{"a":x}"#, #"{"a":1]"#, #"["a" "b"]"#, "{\"a\":\"\u{01}\"}"] {
            #expect(Self.jsonError(text)?.kind == .invalid, "\(text)")
        }
    }

    /// A REST body cut inside a string (not at its last byte) is a truncated answer, not an answer that is not JSON.
    @Test func bodyCutInsideAStringIsTruncated() {
        let text = #"{"objectIdFieldName":"OBJECTID","features":[{"attributes":{"NAME":"Isaac is a long na"#
        do {
            _ = try FeatureSetReader.page(Array(text.utf8))
            Issue.record("a cut body was read")
        } catch {
            #expect(error == .truncated(bytes: text.utf8.count))
        }
    }

    /// A page whose fields are malformed keeps the fields' own error.
    @Test func pageWithMalformedFields() {
        let error = #expect(throws: FeatureSetReadError.fields(.fieldsNotArray)) {
            _ = try FeatureSetReader.page(Array(#"{"fields":{"name":"a"},"features":[]}"#.utf8))
        }
        #expect(error?.description == "unexpected response: 'fields' must be an array")
    }

    /// A missing file and a directory are unreadable recordings; a bad line is an invalid one.
    @Test func recordingErrorKinds() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).jsonl").path
        let error = #expect(throws: RecordingError.unreadable(path: missing, errno: ENOENT)) { _ = try RecordingFileReader(path: missing) }
        #expect(error?.kind == .unreadable && error?.description == "cannot read '\(missing)': No such file or directory")
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: RecordingError.isDirectory(path: directory)) { _ = try RecordingFileReader(path: directory) }
        #expect(RecordingError.isDirectory(path: directory).kind == .unreadable)
        #expect(RecordingError.arrayNotClosed(line: 3).kind == .invalid)
    }
}
