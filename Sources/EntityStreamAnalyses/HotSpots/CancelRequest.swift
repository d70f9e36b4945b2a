import EntityStreamCore
import EntityStreamLocking
import EntityStreamModel

/// A one-way "please cancel" flag for work that must go on after its task
/// was cancelled (a remote job whose cancel has to be sent and confirmed):
/// ``fire()`` sets it and wakes every ``sleep(until:clock:)`` in progress.
/// Thread-safe.
final class CancelRequest: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var next = 0
    }

    private let state = LockedState(State())

    var isFired: Bool { state.withLock { $0.fired } }

    func fire() {
        let waiters = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.finish() }
    }

    /// Sleeps until `deadline` on `clock`, or until the request fires (at once if it has).
    func sleep(until deadline: Int64, clock: any EntityClock) async {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let id = state.withLock { state -> Int? in
            guard !state.fired else { return nil }
            state.next += 1
            state.waiters[state.next] = continuation
            return state.next
        }
        guard let id else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline) }
            group.addTask { for await _ in stream {} }
            await group.next()
            group.cancelAll()
        }
        state.withLock { _ = $0.waiters.removeValue(forKey: id) }
        continuation.finish()
    }
}
