#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM for the whole process, none ever lost: each is handed
/// to the program's current choice, on a thread of its own.
///
/// ``install()`` runs first thing in `main`. From then on a signal's
/// handler only writes its number into a pipe (all a signal handler may
/// safely do), whichever thread the system picks to run it, and a thread
/// reads the pipe and does what was chosen last:
/// - before any choice, end the program at once with exit status 0 (the
///   status both programs document for a stop by signal: nothing has started
///   yet that needs stopping, so there is nothing to report; the system's
///   default, 128 + the signal, said the program had failed);
/// - after ``watch(_:)``, call the handler (a program stopping gracefully);
/// - after ``ignore()``, nothing (a program already stopping).
///
/// This replaces setting the signals to `SIG_IGN` and then registering
/// dispatch sources, whose registration is asynchronous: a signal in
/// between was lost, and a `stream-simulator` told to stop right after it
/// announced its port kept running. Without ``install()`` (a test process),
/// the choices are kept but no signal reaches them.
public enum StopSignals {
    private enum Choice {
        case endProgram(status: Int32)
        case call(@Sendable (Int32) -> Void)
        case ignore
    }

    private static let choice = LockedState(Choice.endProgram(status: 0))
    /// The pipe's write end, for the signal handler (a C function cannot capture).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Routes SIGINT and SIGTERM through the pipe and starts the thread that
    /// reads it; call once, first thing in `main`. Returns false (and changes
    /// nothing) when no pipe or thread can be made.
    @discardableResult
    public static func install() -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        guard startReader(ends[0]) else {
            for end in ends { close(end) }
            return false
        }
        writeEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            let saved = errno
            _ = write(StopSignals.writeEnd, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in [SIGINT, SIGTERM] { sigaction(number, &action, nil) }
        return true
    }

    /// From now on each SIGINT or SIGTERM calls `handler` with its number
    /// (on the signal thread), in place of any earlier choice.
    public static func watch(_ handler: @escaping @Sendable (Int32) -> Void) {
        choice.withLock { $0 = .call(handler) }
    }

    /// From now on SIGINT and SIGTERM do nothing.
    public static func ignore() {
        choice.withLock { $0 = .ignore }
    }

    private static func deliver(_ number: Int32) {
        switch choice.withLock({ $0 }) {
        case .endProgram(let status):
            // At once, without atexit handlers: other threads may be using what they would tear down.
            _exit(status)
        case .call(let handler):
            handler(number)
        case .ignore:
            break
        }
    }

    private static func startReader(_ readEnd: Int32) -> Bool {
        var thread = pthread_t()
        let descriptor = UnsafeMutableRawPointer(bitPattern: Int(readEnd) + 1)
        let created = pthread_create(&thread, nil, { raw in
            let readEnd = Int32(Int(bitPattern: raw) - 1)
            ThreadName.setCurrent("stop signals")
            while true {
                var byte: UInt8 = 0
                let count = read(readEnd, &byte, 1)
                if count == 1 { StopSignals.deliver(Int32(byte)) } else if count == 0 || errno != EINTR { return nil }
            }
        }, descriptor)
        guard created == 0 else { return false }
        pthread_detach(thread)
        return true
    }
}
