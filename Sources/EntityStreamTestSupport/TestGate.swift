import EntityStreamLocking

/// A counting gate for tests: at most `width` bodies run inside it at once,
/// and the others wait in arrival order, suspended (no thread blocked).
///
/// A waiter that is cancelled leaves the queue and throws
/// `CancellationError`. Safe from any task.
public final class TestGate: Sendable {
    /// The gate of ``BoundedTest/Lane/compute``.
    public static let compute = TestGate(width: BoundedTest.Lane.compute.width)
    /// The gate of ``BoundedTest/Lane/io``.
    public static let io = TestGate(width: BoundedTest.Lane.io.width)

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
        var cancelled: Set<UInt64> = []
    }

    private let state: LockedState<State>

    /// A gate that lets `width` (at least one) bodies in at once.
    public init(width: Int) {
        state = LockedState(State(free: max(1, width)))
    }

    /// Waits for a slot, runs `body`, and frees the slot however `body` ends.
    public func withSlot<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if state.free > 0 && state.waiters.isEmpty {
                        state.free -= 1
                        return .success(())
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                // Not queued yet: the continuation sees the mark and throws.
                state.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // A slot taken by a waiter cancelled after it was granted is still ours to free.
        state.withLock { state in _ = state.cancelled.remove(id) }
    }

    private func release() {
        let next: Waiter? = state.withLock { state in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}
