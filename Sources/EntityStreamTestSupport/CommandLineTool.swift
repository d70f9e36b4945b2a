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

    /// Runs `name` with `arguments` to completion.
    public static func run(_ name: String, _ arguments: [String], input: String? = nil) throws -> ProcessRunner.Result {
        try ProcessRunner.run(path(name), arguments, input: input)
    }
}

/// A long-running child process (a simulator, a streaming client) whose
/// stderr and stdout lines the test reads as they come. It is killed when
/// the value is released, if it is still running.
public final class RunningProcess: @unchecked Sendable {
    /// The child (its pid, its pipes).
    public let child: ChildProcess
    private var pending: [UInt8] = []

    public init(_ executable: String, _ arguments: [String]) throws {
        child = try ChildProcess(executable, arguments)
    }

    /// Reads stderr until a line contains `marker`; returns that line.
    public func waitForErrorLine(containing marker: String) -> String? {
        var buffer: [UInt8] = []
        while true {
            let chunk = ChildProcess.read(child.standardError)
            if chunk.isEmpty { return nil }
            buffer += chunk
            let text = String(decoding: buffer, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
        }
    }

    /// The port from a `… port N` line on stderr (the simulator's announcement).
    public func waitForPort() -> Int? {
        guard let line = waitForErrorLine(containing: "listening on") else { return nil }
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

    /// Ends the child (SIGTERM) and waits for it.
    public func stop() {
        if child.isRunning {
            child.signal(SIGTERM)
            child.wait()
        }
    }
}
