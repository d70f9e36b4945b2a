import EntityStreamLocking

/// A clock that only moves when told to, for tests.
///
/// ``advance(by:)`` moves time and resumes every sleeper whose deadline has
/// passed, in deadline order. ``sleepers(atLeast:)`` lets a test wait until
/// the code under test is actually asleep (an event, not a sleep), so each
/// step of a time-driven policy can be checked exactly. Thread-safe.
public final class ManualClock: EntityClock {
    private struct Sleeper {
        let id: Int
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64
        var sleepers: [Sleeper] = []
        var nextID = 0
        var countWaiters: [(Int, CheckedContinuation<Void, Never>)] = []
    }

    private let state: LockedState<State>

    /// Starts at `start` epoch milliseconds (default 2026-01-01T00:00:00Z).
    public init(start: Int64 = 1_767_225_600_000) {
        state = LockedState(State(now: start))
    }

    public func now() -> Int64 { state.withLock { $0.now } }

    public func sleep(until deadline: Int64) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now { return (true, []) }
                    if Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, Self.takeSatisfiedCountWaiters(&state))
                }
                for waiter in waiters { waiter.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `milliseconds` and wakes the sleepers now due.
    public func advance(by milliseconds: Int64) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += milliseconds
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sets the time to `milliseconds` (never backwards) and wakes who is due.
    public func advance(to milliseconds: Int64) {
        advance(by: max(0, milliseconds - now()))
    }

    /// Number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until, if any.
    public var nextDeadline: Int64? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Returns once at least `count` tasks are sleeping on this clock.
    public func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.countWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedCountWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.countWaiters.filter { $0.0 <= count }.map(\.1)
        state.countWaiters.removeAll { $0.0 <= count }
        return ready
    }
}
