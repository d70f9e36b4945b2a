import Foundation

/// Runs a program to completion and captures its output, for tests.
public enum ProcessRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs `executable` with `arguments` (and `input` on stdin) and waits.
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil,
                           environment: [String: String]? = nil) throws -> Result {
        let child = try ChildProcess(executable, arguments, environment: environment)
        if let input { child.write(Array(input.utf8)) }
        child.closeInput()
        let (output, error) = child.readToEnd()
        let status = child.wait()
        return Result(status: status,
                      standardOutput: String(decoding: output, as: UTF8.self),
                      standardError: String(decoding: error, as: UTF8.self))
    }
}
