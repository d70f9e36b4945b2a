import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

@Suite("Replay: a file that cannot be opened", .bounded)
struct ReplayOpenErrorTests {
    /// A missing file is refused with the system's reason, named once (not as a problem of its contents).
    @Test func missingFileIsNamedOnce() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString).jsonl").path
        do {
            _ = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(), pacing: .asFastAsPossible, loop: false)
            Issue.record("a missing file was prepared")
        } catch {
            #expect(error.description == "cannot read '\(path)': No such file or directory")
        }
    }

    /// A file whose contents are wrong is named with what is wrong in it.
    @Test func invalidContentsNameTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).jsonl").path
        try "this is not a recording\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(), pacing: .asFastAsPossible, loop: false)
            Issue.record("an invalid file was prepared")
        } catch {
            #expect(error.description.hasPrefix("'\(path)' "))
        }
    }
}
