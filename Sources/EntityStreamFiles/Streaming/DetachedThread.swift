#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached POSIX thread (1 MiB stack) for blocking or CPU-bound
/// work outside Swift's cooperative pool. The thread is created by the
/// calling thread and so inherits its scheduling policy and nice value.
enum DetachedThread {
    private final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new thread; false (nothing started) when the system refuses one.
    @discardableResult
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 1 << 20)
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, threadEntry, context)
        if status != 0 { Unmanaged<Body>.fromOpaque(context).release() }
        return status == 0
    }

    private static let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
        guard let raw else { return nil }
        let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
        body.run()
        return nil
    }
}
