#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`, shared between threads (the
/// libwebsockets service thread, Swift tasks, test harnesses).
///
/// Used everywhere instead of `Synchronization.Mutex` because the thread
/// sanitizer understands pthread mutexes (it intercepts them), so
/// `swift test --sanitize=thread` checks the real hand-offs instead of
/// reporting every guarded access as a race. Thread-safe; keep the closures
/// short and never await inside them. Never throws except what `body` throws.
public final class LockedState<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
