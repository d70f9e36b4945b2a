import Dispatch
import EntityStreamLocking
import EntityStreamTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import EntityStreamTransport

/// A thread-local value whose destructor makes the thread that set it slow to
/// end: the destructor runs after the thread's body has returned, as
/// OpenSSL's per-thread clean-up does on the service thread, and lasts until
/// the test releases it (at most 1 s, so a correct loop still gets its join).
private enum SlowThreadEnd {
    static let released = DispatchSemaphore(value: 0)
    static let ended = Atomic<Bool>(false)
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { _ in
            _ = SlowThreadEnd.released.wait(timeout: .now() + .seconds(1))
            SlowThreadEnd.ended.store(true, ordering: .releasing)
        }
        return key
    }()

    /// Called on the thread to slow down.
    static func arm() { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }
}

@Suite("The event loop's thread at shutdown", .bounded(.io))
struct LoopThreadEndTests {
    /// `shutdown()` returns only once the service thread has ended, its
    /// thread-local destructors included. `entitystream` calls `exit()` right
    /// after it; when it returned as the thread's body finished, exit's
    /// handlers (OpenSSL's clean-up among them) ran while the thread was
    /// still freeing memory (`record` aborted at its end with
    /// `malloc_consolidate(): invalid chunk size`, 2 runs in 3,400).
    @Test func shutdownReturnsAfterTheThreadHasEnded() async throws {
        let eventLoop = TransportEventLoop(name: "es-thread-end")
        let (loop, _) = try await eventLoop.running()
        let armed: Bool = await withCheckedContinuation { continuation in
            let accepted = loop.execute {
                SlowThreadEnd.arm()
                continuation.resume(returning: true)
            }
            if !accepted { continuation.resume(returning: false) }
        }
        #expect(armed)
        await eventLoop.shutdown()
        let endedBeforeShutdownReturned = SlowThreadEnd.ended.load(ordering: .acquiring)
        SlowThreadEnd.released.signal()
        #expect(endedBeforeShutdownReturned, "shutdown() returned while the service thread was still ending")
    }

    /// The thread that joins an ended service thread does not carry that
    /// thread's name: Linux copies a creator's name into a new thread, and a
    /// joiner still ending after shutdown() returned made a loop's thread look
    /// alive to a test counting threads by name (shutdownWhileMessagesAreInFlight
    /// saw 1 thread after, 0 before, once under load).
    @Test func theJoinerDoesNotTakeTheEndedThreadsName() async {
        let names: (ended: String, joiner: String) = await withCheckedContinuation { continuation in
            let spawned = JoinableThread.spawn {
                ThreadName.setCurrent("es-ending-loop")
                let ended = ThreadName.current
                JoinableThread.afterCurrentEnds { continuation.resume(returning: (ended, ThreadName.current)) }
            }
            if !spawned { continuation.resume(returning: ("", "")) }
        }
        #expect(names.ended == "es-ending-loop")
        #expect(names.joiner == JoinableThread.joinerName)
    }
}
