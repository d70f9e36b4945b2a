#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a `pthread_mutex_t`, shared between the service thread
/// and Swift tasks.
///
/// Used instead of `Synchronization.Mutex` in the transport because the
/// thread sanitizer understands pthread mutexes (it intercepts them), so
/// `swift test --sanitize=thread` checks the transport's real hand-offs
/// instead of reporting every guarded access. Thread-safe; keep the closures
/// short and never await inside them.
final class LockedState<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: Value) {
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
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
