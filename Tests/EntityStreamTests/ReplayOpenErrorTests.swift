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
            #expect(error == .unreadable("cannot read '\(path)': No such file or directory"))
            #expect(error.description == "cannot read '\(path)': No such file or directory")
            #expect(!error.isUsageError)
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
            guard case .invalidFile(let named, _) = error else {
                Issue.record("an invalid file was not classified as one: \(error)")
                return
            }
            #expect(named == path)
            #expect(error.description.hasPrefix("'\(path)' "))
            #expect(!error.isUsageError)
        }
    }

    /// --speed on a file without times is the command's mistake (a usage error), naming the file's layout.
    @Test func speedWithoutTimesIsAUsageError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("untimed-\(UUID().uuidString).json").path
        try #"{"geometry":{"x":1,"y":2},"attributes":{"id":"T1"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(), pacing: .recordedTiming(speed: 1), loop: false)
            Issue.record("--speed on a file without times was accepted")
        } catch {
            guard case .speedNeedsTimes(let layout) = error else {
                Issue.record("not classified as --speed without times: \(error)")
                return
            }
            #expect(error.isUsageError)
            #expect(error.description.contains("(this file is \(layout), without times)"))
        }
    }
}
