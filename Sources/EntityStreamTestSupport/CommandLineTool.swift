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
/// stderr and stdout lines the test reads as they come. It is terminated
/// when the value is released, if it is still running.
public final class RunningProcess: @unchecked Sendable {
    public let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let input = Pipe()
    private var pending = Data()

    public init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
    }

    /// A test that throws or fails midway must not leave its child running.
    deinit { stop() }

    /// Reads stderr until a line contains `marker`; returns that line.
    public func waitForErrorLine(containing marker: String) -> String? {
        var buffer = Data()
        while true {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
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
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
        }
        return lines
    }

    /// Everything left on stdout after the process exits.
    public func remainingOutput() -> String {
        String(decoding: pending + output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    public func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for exit and returns the status.
    public func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
