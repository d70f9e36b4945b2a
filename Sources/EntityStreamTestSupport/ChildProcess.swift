import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard streams wired
/// as the caller asks, waited for with `waitpid`.
///
/// Tests use this rather than Foundation's `Process`: on Linux, `Process`
/// notices its child's exit on a Dispatch queue whose threads are the ones
/// Swift's tasks run on, so tests blocked waiting for children (two are
/// enough on a 2-core machine) starve that queue and stall the whole run.
/// Nothing here needs another thread. Every pipe end is made close-on-exec
/// at once, so children do not keep other tests' pipes open. A child still
/// running after its `lifetime` (90 s by default, under the tests' time
/// limits) is killed by ``ChildWatchdog``, so that a hung child fails its
/// test instead of hanging the run in a blocking read.
public final class ChildProcess: @unchecked Sendable {
    /// What one of the child's standard streams is connected to.
    public enum Stream {
        /// A pipe whose other end the parent keeps (see ``standardInput`` and friends).
        case pipe
        /// `/dev/null`.
        case null
        /// A descriptor of the parent's, duplicated into the child.
        case descriptor(Int32)
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    /// The parent's end of the child's stdin pipe (write), or -1.
    public private(set) var standardInput: Int32 = -1
    /// The parent's end of the child's stdout pipe (read), or -1.
    public let standardOutput: Int32
    /// The parent's end of the child's stderr pipe (read), or -1.
    public let standardError: Int32
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments` (and `environment`, or the
    /// parent's), to be killed if it is still running after `lifetime`.
    /// Throws the `errno` of a failed spawn.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                input: Stream = .pipe, output: Stream = .pipe, error: Stream = .pipe,
                lifetime: Duration = .seconds(90)) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }

        func wire(_ stream: Stream, to target: Int32, childReads: Bool) throws -> Int32 {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return -1
            case .descriptor(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
                return -1
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw ChildProcessError(code: errno) }
                for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return parentEnd
            }
        }
        let inputEnd = try wire(input, to: 0, childReads: true)
        let outputEnd = try wire(output, to: 1, childReads: false)
        let errorEnd = try wire(error, to: 2, childReads: false)
        // After the dup2s, the child keeps its three standard streams and nothing else: other
        // tests' pipes and sockets (opened without close-on-exec by code that
        // does not expect children) would otherwise stay open in it.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        // The child starts as a shell would start it: no signal blocked and
        // every signal at its default action. The thread that spawns inherits
        // the test process's blocked signals (and SIGPIPE ignored), and a
        // shell started with SIGTERM blocked never ended when told to.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environmentLines = (environment.map { $0.map { "\($0.key)=\($0.value)" } })
        var pid: pid_t = 0
        let status = withCStrings([executable] + arguments) { argv in
            if let environmentLines {
                return withCStrings(environmentLines) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard status == 0 else {
            for fd in [inputEnd, outputEnd, errorEnd] where fd >= 0 { close(fd) }
            throw ChildProcessError(code: status)
        }
        processIdentifier = pid
        ChildWatchdog.shared.watch(pid, name: executable.split(separator: "/").last.map(String.init) ?? executable, limit: lifetime)
        standardInput = inputEnd
        standardOutput = outputEnd
        standardError = errorEnd
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+; declared
    /// only under `_GNU_SOURCE`, so looked up by name).
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    deinit {
        if exitStatus == nil {
            kill(processIdentifier, SIGKILL)
            _ = wait()
        }
        for fd in [standardInput, standardOutput, standardError] where fd >= 0 { close(fd) }
    }

    /// Writes all of `bytes` to the child's stdin (ignoring a child that has gone).
    public func write(_ bytes: [UInt8]) {
        guard standardInput >= 0 else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(standardInput, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Closes the child's stdin (it reads end of file).
    public func closeInput() {
        if standardInput >= 0 {
            close(standardInput)
            standardInput = -1
        }
    }

    /// Sends `signal` to the child.
    public func signal(_ number: Int32) {
        if exitStatus == nil { kill(processIdentifier, number) }
    }

    /// Waits until the child has a handler for `signal` (its `SigCgt` mask in
    /// `/proc/PID/status`): from then on the signal reaches the program's own
    /// code, not the system's default action. False if the child ended first.
    /// Polls, yielding the processor between looks: no other event says it.
    public func waitUntilCatching(_ signal: Int32) -> Bool {
        let path = "/proc/\(processIdentifier)/status"
        while true {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  let line = text.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                  let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
            if text.contains("State:\tZ") { return false }
            if mask & (1 << UInt64(signal - 1)) != 0 { return true }
            sched_yield()
        }
    }

    /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        // Wait for the end without reaping, then reap under the watchdog's lock.
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return reap(blocking: true) ?? 128 + SIGKILL
    }

    /// Whether the child has not been waited for and has not ended.
    public var isRunning: Bool {
        exitStatus == nil && reap(blocking: false) == nil
    }

    /// Reaps the child if it has ended (after ``wait()``'s `waitid` it has): its status, kept.
    private func reap(blocking: Bool) -> Int32? {
        let pid = processIdentifier
        let result = ChildWatchdog.shared.settle(pid) { () -> Int32? in
            var status: Int32 = 0
            var answer: pid_t
            repeat { answer = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while answer < 0 && errno == EINTR
            guard answer == pid else { return answer < 0 ? 128 + SIGKILL : nil }
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
        if let result { exitStatus = result }
        return result
    }

    /// The next bytes from `fd` (blocking); empty at end of file.
    public static func read(_ fd: Int32) -> [UInt8] {
        guard fd >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : []
        }
    }

    /// Everything the child writes to stdout and stderr until both close,
    /// read together with `poll` so neither pipe can fill and block it.
    public func readToEnd() -> (output: [UInt8], error: [UInt8]) {
        var output: [UInt8] = [], error: [UInt8] = []
        drain { fromStandardError, chunk in
            if fromStandardError { error += chunk } else { output += chunk }
        }
        return (output, error)
    }

    /// Reads stdout and stderr together with `poll` until both close, handing
    /// each chunk read to `take` (true: from stderr); an empty chunk says that
    /// pipe closed. Blocks the calling thread.
    public func drain(_ take: (_ fromStandardError: Bool, _ chunk: [UInt8]) -> Void) {
        var open = [standardOutput, standardError]
        while open.contains(where: { $0 >= 0 }) {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            for index in fds.indices where fds[index].fd >= 0 && fds[index].revents != 0 {
                let chunk = Self.read(fds[index].fd)
                if chunk.isEmpty { open[index] = -1 }
                take(index == 1, chunk)
            }
        }
    }
}

/// A spawn or pipe that failed, with its `errno`.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let code: Int32
    public var description: String { "cannot start a child process: \(String(cString: strerror(code)))" }
}

/// Calls `body` with a NULL-terminated C array of `strings`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
