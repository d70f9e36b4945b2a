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
            #expect(error == .recording(path: path, .unreadable(path: path, errno: ENOENT)))
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
            guard case .recording(let named, let recording) = error, recording.kind == .invalid else {
                Issue.record("an invalid file was not classified as one: \(error)")
                return
            }
            #expect(named == path)
            #expect(error.description.hasPrefix("'\(path)' "))
            #expect(!error.isUsageError)
        }
    }

    /// A file read whole that cannot be opened, or is a directory, is named with the system's reason.
    @Test func unreadableWholeFiles() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("absent-\(UUID().uuidString).csv").path
        let missing = #expect(throws: ReplayError.unreadable(path: path, errno: ENOENT)) { _ = try ReplaySource.readFile(path) }
        #expect(missing?.description == "cannot read '\(path)': No such file or directory")
        let directory = FileManager.default.temporaryDirectory.path
        let isDirectory = #expect(throws: ReplayError.isDirectory(path: directory)) { _ = try ReplaySource.readFile(directory) }
        #expect(isDirectory?.description == "cannot read '\(directory)': it is a directory")
    }

    /// A filter the file cannot apply keeps the filter's own error.
    @Test func filterTheFileCannotApply() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("filtered-\(UUID().uuidString).json").path
        try #"{"geometry":{"x":1,"y":2},"attributes":{"id":"T1"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let filter = StreamFilter(outFields: ["colour"])
        do {
            _ = try ReplaySource.prepare(path: path, trackIDField: "id", filter: filter, pacing: .asFastAsPossible, loop: false)
            Issue.record("a filter naming an unknown field was accepted")
        } catch {
            guard case .filter(.filter(.unknownOutField("colour", _))) = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("filter: unknown field 'colour' in outFields (fields: "), "\(error)")
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
