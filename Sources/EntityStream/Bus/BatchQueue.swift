import Locking

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
/// Batches are kept as they were sent (never copied element by element):
/// ``next()`` hands out the oldest batch, waiting while the queue is empty.
/// Under ``OverflowPolicy/backPressure``, a batch that arrives while the queue
/// holds `capacity` elements or more waits, in arrival order, and is admitted
/// (and its sender resumed) as the consumer takes batches; so the queue never
/// holds much more than `capacity` elements. ``finish()`` ends the queue: the
/// consumer drains what is left, then gets nil; later sends are dropped.
/// Thread-safe.
public final class BatchQueue<Element: Sendable>: Sendable {
    private struct State {
        var batches: [[Element]] = []
        var head = 0
        var queued = 0
        var consumer: CheckedContinuation<[Element]?, Never>?
        var waiting: [(batch: [Element], sender: CheckedContinuation<Void, Never>)] = []
        var finished = false
        var droppedSinceTaken = 0
        var droppedTotal = 0

        var isEmpty: Bool { head == batches.count }

        mutating func push(_ batch: [Element]) {
            batches.append(batch)
            queued += batch.count
        }

        mutating func pop() -> [Element] {
            let batch = batches[head]
            batches[head] = []
            head += 1
            queued -= batch.count
            if head == batches.count {
                batches.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32 && head * 2 >= batches.count {
                batches.removeFirst(head)
                head = 0
            }
            return batch
        }

        /// Drops the oldest elements until `capacity` remain; returns how many.
        mutating func drop(toFit capacity: Int) -> Int {
            var dropped = 0
            while queued > capacity && !isEmpty {
                let excess = queued - capacity
                if batches[head].count <= excess {
                    dropped += pop().count
                } else {
                    batches[head].removeFirst(excess)
                    queued -= excess
                    dropped += excess
                }
            }
            return dropped
        }
    }

    private enum SendStep {
        case done
        case handOff(CheckedContinuation<[Element]?, Never>, [Element])
        case wait
    }

    public let capacity: Int
    public let policy: OverflowPolicy
    private let state = LockedState(State())

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
                if policy == .backPressure && (state.queued >= capacity || !state.waiting.isEmpty) {
                    state.waiting.append((batch, sender))
                    return .wait
                }
                if let consumer = state.consumer {
                    // The consumer is waiting, so the queue is empty: hand the batch over directly.
                    state.consumer = nil
                    return .handOff(consumer, batch)
                }
                state.push(batch)
                if policy == .dropOldest && state.queued > capacity {
                    let dropped = state.drop(toFit: capacity)
                    state.droppedSinceTaken += dropped
                    state.droppedTotal += dropped
                }
                return .done
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

    /// The oldest batch (waiting while none is queued); nil once finished and drained.
    public func next() async -> [Element]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Element]?, Never>) in
            let (result, admitted) = state.withLock { state -> ([Element]??, [CheckedContinuation<Void, Never>]) in
                guard !state.isEmpty else {
                    if state.finished { return (.some(nil), []) }
                    if !state.waiting.isEmpty {
                        let (batch, sender) = state.waiting.removeFirst()
                        return (.some(batch), [sender])
                    }
                    state.consumer = continuation
                    return (nil, [])
                }
                let taken = state.pop()
                var admitted: [CheckedContinuation<Void, Never>] = []
                while !state.waiting.isEmpty && state.queued < capacity {
                    let (batch, sender) = state.waiting.removeFirst()
                    state.push(batch)
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
    public var count: Int { state.withLock { $0.queued } }

    /// Ends the queue; the consumer drains what is queued, then gets nil.
    /// Batches still waiting to be admitted are dropped and their senders resumed.
    public func finish() {
        let (consumer, senders) = state.withLock { state -> (CheckedContinuation<[Element]?, Never>?, [CheckedContinuation<Void, Never>]) in
            state.finished = true
            let senders = state.waiting.map(\.sender)
            state.waiting = []
            let consumer = state.isEmpty ? state.consumer : nil
            if consumer != nil { state.consumer = nil }
            return (consumer, senders)
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
    }
}
