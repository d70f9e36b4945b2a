#if canImport(Glibc)
import Glibc
#endif
import CLibWebSockets
import EntityStreamLocking

/// A POSIX thread whose end can be waited for: the service loop's thread.
///
/// Foundation's `Thread` is detached, so nobody can tell when it has really
/// ended: after its body returns it still runs its thread-local destructors
/// (OpenSSL's per-thread state, Foundation's current-thread object), which
/// free memory. Code that resumed a waiter as the body's last statement
/// therefore let the waiter's program call `exit()` while the thread was
/// still freeing, and `exit()`'s handlers tear down the same libraries.
/// ``afterCurrentEnds(_:)`` runs its closure only once the calling thread
/// has been joined.
enum JoinableThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new joinable thread with a 1 MiB stack; false when
    /// no thread could be made. The thread must end with ``afterCurrentEnds(_:)``
    /// (which joins it).
    static func spawn(_ body: @escaping () -> Void) -> Bool {
        start(body, detached: false)
    }

    /// The name of the short-lived thread that joins an ending one.
    static let joinerName = "es-thread-join"

    /// Called as the last thing a thread from ``spawn(_:)`` does: runs `then`
    /// on a short-lived helper thread once this thread has ended (joined).
    /// If no helper can be made, `then` runs at once, as before.
    ///
    /// The helper names itself ``joinerName`` first: Linux gives a new thread
    /// its creator's name, and a helper still ending after `then` resumed a
    /// waiter looked like the ended thread to anyone counting threads by name.
    static func afterCurrentEnds(_ then: @escaping () -> Void) {
        let ending = pthread_self()
        let started = start({
            ThreadName.setCurrent(joinerName)
            pthread_join(ending, nil)
            then()
        }, detached: true)
        if !started {
            pthread_detach(ending)
            then()
        }
    }

    private static func start(_ body: @escaping () -> Void, detached: Bool) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 1 << 20)
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }
}
