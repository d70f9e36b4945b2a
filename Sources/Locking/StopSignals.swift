#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM as calls of a handler on a thread of their own, none
/// ever lost.
///
/// ``install()`` runs first thing in `main`: from then on a signal's
/// handler only writes its number into a pipe (all a signal handler may
/// safely do), whichever thread the system picks to run it. ``start(_:)``
/// starts the thread that reads the pipe and calls the handler, so a signal
/// that came before `start` is handled as soon as it runs. This replaces
/// setting the signals to `SIG_IGN` and registering a dispatch source,
/// which lost a signal that arrived in between: a `stream-simulator` told
/// to stop right after it announced its port kept running.
public enum StopSignals {
    /// The pipe's write end, read by the signal handler (a C function cannot capture).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// Installs the handler for SIGINT and SIGTERM; call once, before ``start(_:)``.
    /// Returns false (and changes nothing) when no pipe can be made.
    @discardableResult
    public static func install() -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        (readEnd, writeEnd) = (ends[0], ends[1])
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

    /// Starts the thread that calls `handler` with each SIGINT or SIGTERM
    /// (after ``install()``), for the life of the process.
    public static func start(_ handler: @escaping @Sendable (Int32) -> Void) {
        final class Context {
            let handler: @Sendable (Int32) -> Void
            init(_ handler: @escaping @Sendable (Int32) -> Void) { self.handler = handler }
        }
        guard readEnd >= 0 else { return }
        let context = Unmanaged.passRetained(Context(handler)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            ThreadName.setCurrent("stop signals")
            while true {
                var byte: UInt8 = 0
                let count = read(StopSignals.readEnd, &byte, 1)
                if count == 1 { context.handler(Int32(byte)) } else if count == 0 || errno != EINTR { return nil }
            }
        }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Context>.fromOpaque(context).release()
        }
    }
}
