import EntityStream
import Foundation

/// Runs a program to completion and captures its output, for tests.
public enum ProcessRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// Runs `executable` with `arguments` (and `input` on stdin) and waits.
    ///
    /// The spawn, the pipe reads and the wait for the child's exit run on a
    /// thread of their own (a ``BlockingIOThread`` made for this run), not on
    /// Swift's cooperative pool: that pool has one thread per core, and a test
    /// blocked there for a child's whole life left the tests awaiting sockets
    /// (their servers' answers, their own timeouts) nothing to run on.
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil,
                           environment: [String: String]? = nil) async throws -> Result {
        let thread = BlockingIOThread(name: "test-child-wait")
        defer { thread.shutdown() }
        let outcome = await thread.run { () -> Swift.Result<Result, any Error> in
            Swift.Result { try runBlocking(executable, arguments, input: input, environment: environment) }
        }
        return try outcome.get()
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], input: String?,
                                    environment: [String: String]?) throws -> Result {
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
