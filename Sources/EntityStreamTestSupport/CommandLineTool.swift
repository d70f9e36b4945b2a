import EntityStream
import Foundation

/// The package's own executables (`entitystream`, `stream-simulator`), run
/// as a user would: found next to the test bundle in the build directory.
public enum CommandLineTool {
    /// The build directory holding the executables.
    public static var directory: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("entitystream").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    public static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Runs `name` with `arguments` to completion, waiting off the cooperative
    /// pool (see ``ProcessRunner/run(_:_:input:environment:)``).
    public static func run(_ name: String, _ arguments: [String], input: String? = nil) async throws -> ProcessRunner.Result {
        try await ProcessRunner.run(path(name), arguments, input: input)
    }
}

/// A long-running child process (a simulator, a streaming client) whose
/// stderr and stdout lines the test reads as they come. It is killed when
/// the value is released, if it is still running.
public final class RunningProcess: @unchecked Sendable {
    /// The child (its pid, its pipes).
    public let child: ChildProcess
    private var pending: [UInt8] = []
    /// Stderr read but not yet a whole line, and whole lines not yet taken by ``waitForErrorLine(containing:)``.
    private var pendingError: [UInt8] = []
    private var errorLines: [String] = []

    public init(_ executable: String, _ arguments: [String]) throws {
        child = try ChildProcess(executable, arguments)
    }

    /// Reads stderr until a whole line contains `marker`; returns that line
    /// (nil when stderr closes first). Lines read on the way that do not
    /// contain it are kept for later calls, so markers may be awaited in any
    /// order; a line is only taken once its end has arrived (or stderr has
    /// closed). The reads block a thread of their own (``offPool(_:)``), not
    /// one of the cooperative pool, while the child starts.
    public func waitForErrorLine(containing marker: String) async -> String? {
        await offPool { $0.readErrorLine(containing: marker) }
    }

    /// ``waitForErrorLine(containing:)``'s blocking reads.
    private func readErrorLine(containing marker: String) -> String? {
        while true {
            if let index = errorLines.firstIndex(where: { $0.contains(marker) }) { return errorLines.remove(at: index) }
            let chunk = ChildProcess.read(child.standardError)
            if chunk.isEmpty {
                if !pendingError.isEmpty { errorLines.append(String(decoding: pendingError, as: UTF8.self)) }
                pendingError = []
                if let index = errorLines.firstIndex(where: { $0.contains(marker) }) { return errorLines.remove(at: index) }
                return nil
            }
            pendingError += chunk
            while let newline = pendingError.firstIndex(of: UInt8(ascii: "\n")) {
                errorLines.append(String(decoding: pendingError[pendingError.startIndex..<newline], as: UTF8.self))
                pendingError.removeSubrange(pendingError.startIndex...newline)
            }
        }
    }

    /// The port from a `… port N` line on stderr (the simulator's announcement),
    /// awaited off the cooperative pool as ``waitForErrorLine(containing:)``.
    public func waitForPort() async -> Int? {
        guard let line = await waitForErrorLine(containing: "listening on") else { return nil }
        return line.split(separator: " ").last.flatMap { Int($0) }
    }

    /// Reads the next `count` lines of stdout (fewer if stdout ends first).
    public func readLines(_ count: Int) -> [String] {
        var lines: [String] = []
        while lines.count < count {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
                continue
            }
            let chunk = ChildProcess.read(child.standardOutput)
            if chunk.isEmpty { break }
            pending += chunk
        }
        return lines
    }

    /// Everything left on stdout until it closes.
    public func remainingOutput() -> String {
        var rest = pending
        pending = []
        while true {
            let chunk = ChildProcess.read(child.standardOutput)
            if chunk.isEmpty { break }
            rest += chunk
        }
        return String(decoding: rest, as: UTF8.self)
    }

    public func write(_ text: String) {
        child.write(Array(text.utf8))
    }

    public func closeInput() {
        child.closeInput()
    }

    public func signal(_ number: Int32) {
        child.signal(number)
    }

    /// Waits for exit and returns the status.
    public func wait() -> Int32 {
        child.wait()
    }

    /// Runs `body` (the blocking reads and waits above) on a thread of its
    /// own and awaits its result, so that a test waiting for the child's
    /// output does not hold a thread of Swift's cooperative pool meanwhile:
    /// `await publisher.offPool { $0.readLines(1_000) }`.
    public func offPool<Result: Sendable>(_ body: @escaping @Sendable (RunningProcess) -> Result) async -> Result {
        let thread = BlockingIOThread(name: "test-child-read")
        defer { thread.shutdown() }
        return await thread.run { body(self) }
    }

    /// Ends the child (SIGTERM) and waits for it.
    public func stop() {
        if child.isRunning {
            child.signal(SIGTERM)
            child.wait()
        }
    }
}
