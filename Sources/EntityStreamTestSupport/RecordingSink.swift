import EntityStream
import EntityStreamCore
import EntityStreamLocking
import EntityStreamModel

/// A ``StreamConnectionSink`` for tests: keeps everything a connection
/// delivers and lets a test await a condition on it instead of sleeping.
public final class RecordingSink: StreamConnectionSink {
    private struct State {
        var schemas: [Schema] = []
        var messages: [StreamMessage] = []
        var primed: [StreamMessage] = []
        var primedAfterLive = false
        var events: [StreamEvent] = []
        var waiters: [(id: Int, condition: @Sendable (RecordingSink.Snapshot) -> Bool, continuation: CheckedContinuation<Snapshot, Never>)] = []
        var nextWaiter = 0
    }

    /// What the sink has received so far.
    public struct Snapshot: Sendable {
        public var schemas: [Schema]
        /// Live messages (``receive(_:)``), in order.
        public var messages: [StreamMessage]
        /// Primed messages (``receivePrimed(_:)``), in order.
        public var primed: [StreamMessage]
        /// True when a primed batch came after a live one.
        public var primedAfterLive: Bool
        public var events: [StreamEvent]

        /// Primed observations, in order.
        public var primedObservations: [Observation] {
            primed.compactMap { if case .observation(let o) = $0 { return o } else { return nil } }
        }

        /// Observations received, in order.
        public var observations: [Observation] {
            messages.compactMap { if case .observation(let o) = $0 { return o } else { return nil } }
        }
        /// Status changes, in order.
        public var statuses: [ConnectionStatusChange] {
            events.compactMap { if case .status(let change) = $0.payload { return change } else { return nil } }
        }
        /// Error reports, in order.
        public var errors: [StreamErrorReport] {
            events.compactMap { if case .error(let report) = $0.payload { return report } else { return nil } }
        }
        /// Filter outcomes, in order.
        public var filterOutcomes: [FilterOutcome] {
            events.compactMap { if case .filter(let outcome) = $0.payload { return outcome } else { return nil } }
        }
    }

    private let state = LockedState(State())

    public init() {}

    public func schemaChanged(_ schema: Schema) async { update { $0.schemas.append(schema) } }
    public func receive(_ messages: [StreamMessage]) async { update { $0.messages.append(contentsOf: messages) } }
    public func receivePrimed(_ messages: [StreamMessage]) async {
        update {
            if !$0.messages.isEmpty { $0.primedAfterLive = true }
            $0.primed.append(contentsOf: messages)
        }
    }
    public func publish(_ event: StreamEvent) async { update { $0.events.append(event) } }

    public var snapshot: Snapshot { state.withLock { Self.snapshot($0) } }

    /// Returns the first snapshot for which `condition` holds (now or later),
    /// or, if the waiting task is cancelled first (a test's time limit), the
    /// snapshot at that moment: the test's expectations then fail instead of
    /// the run hanging.
    public func wait(until condition: @escaping @Sendable (Snapshot) -> Bool) async -> Snapshot {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Snapshot? in
                    let current = Self.snapshot(state)
                    // Checked under the lock the cancellation handler takes too: a cancel is seen here or there.
                    if condition(current) || Task.isCancelled { return current }
                    state.waiters.append((id, condition, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> (CheckedContinuation<Snapshot, Never>, Snapshot)? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return (state.waiters.remove(at: index).continuation, Self.snapshot(state))
            }
            if let (continuation, snapshot) = waiter { continuation.resume(returning: snapshot) }
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [(CheckedContinuation<Snapshot, Never>, Snapshot)] in
            change(&state)
            let current = Self.snapshot(state)
            var ready: [(CheckedContinuation<Snapshot, Never>, Snapshot)] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(current) else { return false }
                ready.append((waiter.continuation, current))
                return true
            }
            return ready
        }
        for (continuation, snapshot) in ready { continuation.resume(returning: snapshot) }
    }

    private static func snapshot(_ state: State) -> Snapshot {
        Snapshot(schemas: state.schemas, messages: state.messages, primed: state.primed, primedAfterLive: state.primedAfterLive,
                 events: state.events)
    }
}
