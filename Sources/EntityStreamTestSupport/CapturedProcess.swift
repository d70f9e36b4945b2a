import Foundation
import EntityStreamLocking

/// A long-running child (a server under test) whose stdout and stderr are
/// drained continuously by a thread of their own — the pipes never fill, and
/// every byte is kept for the test to inspect — and whose lines a test can
/// await (``line(_:where:)``) without blocking a Swift concurrency thread.
/// The child gets SIGTERM when ``stop()`` is called or the value is released.
public final class CapturedProcess: @unchecked Sendable {
    public enum Stream: Sendable { case output, error }

    public let child: ChildProcess
    private let state = LockedState(State())

    private struct State {
        var output: [UInt8] = []
        var error: [UInt8] = []
        var ended = false
        var waiters: [(stream: Stream, from: Int, predicate: @Sendable (String) -> Bool, continuation: CheckedContinuation<String?, Never>)] = []
    }

    /// Starts `executable` with `arguments` (and `environment`, or the parent's).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                lifetime: Duration = .seconds(90)) throws {
        child = try ChildProcess(executable, arguments, environment: environment, lifetime: lifetime)
        let child = self.child
        Thread { [state] in
            child.drain { fromStandardError, chunk in Self.append(chunk, to: fromStandardError ? .error : .output, state: state) }
            let waiters = state.withLock { state -> [CheckedContinuation<String?, Never>] in
                state.ended = true
                defer { state.waiters = [] }
                return state.waiters.map(\.continuation)
            }
            for waiter in waiters { waiter.resume(returning: nil) }
        }.start()
    }

    deinit {
        if child.isRunning { child.signal(SIGTERM) }
    }

    private static func append(_ chunk: [UInt8], to stream: Stream, state: LockedState<State>) {
        let ready = state.withLock { state -> [(CheckedContinuation<String?, Never>, String)] in
            if stream == .output { state.output += chunk } else { state.error += chunk }
            let bytes = stream == .output ? state.output : state.error
            var ready: [(CheckedContinuation<String?, Never>, String)] = []
            state.waiters.removeAll { waiter in
                guard waiter.stream == stream, let line = Self.firstLine(in: bytes, from: min(waiter.from, bytes.count),
                                                                         where: waiter.predicate) else { return false }
                ready.append((waiter.continuation, line))
                return true
            }
            return ready
        }
        for (continuation, line) in ready { continuation.resume(returning: line) }
    }

    private static func firstLine(in bytes: [UInt8], from: Int, where predicate: (String) -> Bool) -> String? {
        var start = from
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: bytes[start..<newline], as: UTF8.self)
            if predicate(line) { return line }
            start = newline + 1
        }
        return nil
    }

    /// The first complete line of `stream` (from its `from`th byte) for which
    /// `predicate` holds, once it has arrived; nil when the stream ends without one.
    public func line(_ stream: Stream, from: Int = 0, where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await withCheckedContinuation { continuation in
            let found = state.withLock { state -> (done: Bool, line: String?) in
                let bytes = stream == .output ? state.output : state.error
                if let line = Self.firstLine(in: bytes, from: min(from, bytes.count), where: predicate) { return (true, line) }
                if state.ended { return (true, nil) }
                state.waiters.append((stream, from, predicate, continuation))
                return (false, nil)
            }
            if found.done { continuation.resume(returning: found.line) }
        }
    }

    /// The port of the child's `… listening on … port N` line on stderr.
    public func port() async -> Int? {
        await line(.error) { $0.contains("listening on") }.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
    }

    /// Everything the child wrote to `stream` so far.
    public func text(_ stream: Stream) -> String {
        state.withLock { String(decoding: stream == .output ? $0.output : $0.error, as: UTF8.self) }
    }

    /// Bytes written to `stream` so far (an offset for ``line(_:from:where:)``).
    public func count(_ stream: Stream) -> Int {
        state.withLock { stream == .output ? $0.output.count : $0.error.count }
    }

    public func write(_ text: String) {
        child.write(Array(text.utf8))
    }

    /// SIGTERM, then the exit status (waited for on a thread of its own).
    @discardableResult
    public func stop() async -> Int32 {
        let child = self.child
        return await withCheckedContinuation { continuation in
            Thread {
                if child.isRunning { child.signal(SIGTERM) }
                continuation.resume(returning: child.wait())
            }.start()
        }
    }
}
