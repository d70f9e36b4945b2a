import Synchronization

/// What a bounded queue does when a batch arrives and it is full.
public enum OverflowPolicy: Sendable, Hashable {
    /// The sender waits until the consumer has made room: nothing is lost and
    /// the slowness travels upstream (ultimately pausing the socket).
    case backPressure
    /// The oldest queued elements are dropped to make room, and counted.
    case dropOldest
}

/// A bounded, multi-producer, single-consumer queue of batches that keeps
/// the order in which batches were sent.
///
/// ``send(_:)`` appends a whole batch. Under ``OverflowPolicy/backPressure``,
/// a batch that arrives while the queue holds `capacity` elements or more
/// waits, in arrival order, and is admitted (and its sender resumed) when the
/// consumer takes what is queued; so the queue never holds more than
/// `capacity` plus one batch. ``next()`` returns everything queued as one
/// array, so a consumer that falls behind catches up in one step.
/// ``finish()`` ends the queue: the consumer drains what is left, then gets
/// nil; later sends are dropped. Thread-safe.
public final class BatchQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var consumer: CheckedContinuation<[Element]?, Never>?
        var waiting: [(batch: [Element], sender: CheckedContinuation<Void, Never>)] = []
        var finished = false
        var droppedSinceTaken = 0
        var droppedTotal = 0
    }

    private enum SendStep {
        case done
        case handOff(CheckedContinuation<[Element]?, Never>, [Element])
        case wait
    }

    public let capacity: Int
    public let policy: OverflowPolicy
    private let state = Mutex(State())

    public init(capacity: Int, policy: OverflowPolicy = .backPressure) {
        self.capacity = max(1, capacity)
        self.policy = policy
    }

    /// Appends `batch`; under back-pressure first waits while the queue is full.
    public func send(_ batch: [Element]) async {
        guard !batch.isEmpty else { return }
        await withCheckedContinuation { (sender: CheckedContinuation<Void, Never>) in
            let step = state.withLock { state -> SendStep in
                if state.finished { return .done }
                if policy == .backPressure && (state.elements.count >= capacity || !state.waiting.isEmpty) {
                    state.waiting.append((batch, sender))
                    return .wait
                }
                if state.elements.isEmpty {
                    state.elements = batch
                } else {
                    state.elements.append(contentsOf: batch)
                }
                if policy == .dropOldest && state.elements.count > capacity {
                    let excess = state.elements.count - capacity
                    state.elements.removeFirst(excess)
                    state.droppedSinceTaken += excess
                    state.droppedTotal += excess
                }
                guard let consumer = state.consumer else { return .done }
                state.consumer = nil
                let taken = state.elements
                state.elements = []
                return .handOff(consumer, taken)
            }
            switch step {
            case .done: sender.resume()
            case .wait: break
            case .handOff(let consumer, let taken):
                sender.resume()
                consumer.resume(returning: taken)
            }
        }
    }

    /// Everything queued (waiting while empty); nil once finished and drained.
    public func next() async -> [Element]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
            let (result, admitted) = state.withLock { state -> ([Element]??, [CheckedContinuation<Void, Never>]) in
                guard !state.elements.isEmpty else {
                    if state.finished { return (.some(nil), []) }
                    state.consumer = continuation
                    return (nil, [])
                }
                let taken = state.elements
                state.elements = []
                var admitted: [CheckedContinuation<Void, Never>] = []
                while !state.waiting.isEmpty && state.elements.count < capacity {
                    let (batch, sender) = state.waiting.removeFirst()
                    if state.elements.isEmpty { state.elements = batch } else { state.elements.append(contentsOf: batch) }
                    admitted.append(sender)
                }
                return (.some(taken), admitted)
            }
            for sender in admitted { sender.resume() }
            if let result { continuation.resume(returning: result) }
        }
    }

    /// Drops since the last call (for `dropped` reports), which resets, and the total.
    public func takeDroppedCount() -> (sinceLast: Int, total: Int) {
        state.withLock { state in
            defer { state.droppedSinceTaken = 0 }
            return (state.droppedSinceTaken, state.droppedTotal)
        }
    }

    /// Total dropped so far (does not reset the since-last count).
    public var droppedTotalSoFar: Int { state.withLock { $0.droppedTotal } }

    /// Elements waiting to be taken (not counting batches whose senders wait).
    public var count: Int { state.withLock { $0.elements.count } }

    /// Ends the queue; the consumer drains what is queued, then gets nil.
    /// Batches still waiting to be admitted are dropped and their senders resumed.
    public func finish() {
        let (consumer, senders) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, [CheckedContinuation<Void, Never>]) in
            state.finished = true
            let senders = state.waiting.map(\.sender)
            state.waiting = []
            let consumer = state.elements.isEmpty ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            return (consumer, senders)
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
    }
}
