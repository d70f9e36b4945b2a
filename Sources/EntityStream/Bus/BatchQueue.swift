import EntityStreamLocking

/// What a bounded queue does when a batch arrives and it is full.
public enum OverflowPolicy: Sendable, Hashable {
    /// The sender waits until the consumer has made room: nothing is lost and
    /// the slowness travels upstream (ultimately pausing the socket).
    case backPressure
    /// The oldest queued elements are dropped to make room, and counted.
    case dropOldest
}

/// A bounded, multi-producer, single-consumer queue of batches that keeps
/// the order in which batches were sent, bounded by a count of elements and
/// by their *cost*: the bytes they keep alive, as each sender estimates for
/// its batch (see ``StreamEvent/retainedBytes``).
///
/// Batches are kept as they were sent (never copied element by element):
/// ``next()`` hands out the oldest batch, waiting while the queue is empty.
/// Under ``OverflowPolicy/backPressure``, a batch that arrives while the
/// queue holds `capacity` elements or `costLimit` bytes or more waits, in
/// arrival order, and is admitted (and its sender resumed) as the consumer
/// takes batches; so the queue never holds more than its limits plus one batch. ``finish()`` ends the
/// queue: the consumer drains what is left, then gets nil; later sends are
/// dropped.
///
/// Cancellation: a sender cancelled while it waits for room returns at once
/// (its batch is dropped; ``send(_:)`` returns false); a consumer cancelled
/// while it waits gets nil. One consumer at a time: a second task waiting in
/// ``next()`` while another does is a programming error and stops the
/// program with a message saying so (as `AsyncStream` does). The rules live
/// in ``BatchQueueState``. Thread-safe.
public final class BatchQueue<Element: Sendable>: Sendable {
    private typealias Taken = (batch: [Element], cost: Int)
    private typealias State = BatchQueueState<Element, CheckedContinuation<Bool, Never>, CheckedContinuation<Taken?, Never>>

    public let capacity: Int
    public let costLimit: Int
    public let policy: OverflowPolicy
    private let state: LockedState<State>
    private let nextSenderID = LockedState(0)

    /// - Parameters:
    ///   - capacity: elements admitted before senders wait (or, under
    ///     `dropOldest`, before the oldest elements are dropped).
    ///   - costLimit: the same limit on the batches' total cost.
    public init(capacity: Int, costLimit: Int = .max, policy: OverflowPolicy = .backPressure) {
        self.capacity = max(1, capacity)
        self.costLimit = max(1, costLimit)
        self.policy = policy
        state = LockedState(State(capacity: capacity, costLimit: costLimit, policy: policy))
    }

    /// Appends `batch`, which keeps `cost` bytes alive; under back-pressure
    /// first waits while the queue is full. Returns false when the batch was
    /// dropped because the queue has ended or the calling task was cancelled
    /// while waiting.
    @discardableResult
    public func send(_ batch: [Element], cost: Int = 0) async -> Bool {
        guard !batch.isEmpty else { return true }
        let action = state.withLock { $0.send(batch, cost: cost) }
        switch action {
        case .queued: return true
        case .finished: return false
        case .handOff(let consumer, let taken, let cost):
            consumer.resume(returning: (taken, cost))
            return true
        case .mustWait:
            return await waitForRoom(batch, cost: cost)
        }
    }

    private func waitForRoom(_ batch: [Element], cost: Int) async -> Bool {
        let id = nextSenderID.withLock { id -> Int in
            defer { id += 1 }
            return id
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (sender: CheckedContinuation<Bool, Never>) in
                // Checked under the lock the cancellation handler takes: either it finds
                // the stored sender, or this sees the task cancelled.
                let action = state.withLock { state -> State.WaitAction? in
                    Task.isCancelled ? nil : state.wait(batch, cost: cost, sender: sender, id: id)
                }
                switch action {
                case nil: sender.resume(returning: false)
                case .stored: break
                case .send(.queued): sender.resume(returning: true)
                case .send(.finished), .send(.mustWait): sender.resume(returning: false)
                case .send(.handOff(let consumer, let taken, let cost)):
                    consumer.resume(returning: (taken, cost))
                    sender.resume(returning: true)
                }
            }
        } onCancel: {
            state.withLock { $0.cancelSender(id: id) }?.resume(returning: false)
        }
    }

    /// The oldest batch (waiting while none is queued); nil once finished and
    /// drained, or when the calling task is cancelled.
    public func next() async -> [Element]? {
        await nextWithCost()?.batch
    }

    /// The oldest batch and the cost its sender gave (see ``next()``).
    public func nextWithCost() async -> (batch: [Element], cost: Int)? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Taken?, Never>) in
                let action = state.withLock { state -> State.NextAction? in
                    Task.isCancelled ? nil : state.next(consumer: continuation)
                }
                switch action {
                case nil: continuation.resume(returning: nil)
                case .stored: break
                case .finished: continuation.resume(returning: nil)
                case .batch(let batch, let cost, let admitted):
                    for sender in admitted { sender.resume(returning: true) }
                    continuation.resume(returning: (batch, cost))
                case .concurrentConsumer:
                    preconditionFailure("BatchQueue: two tasks wait in next() at once; a queue has one consumer")
                }
            }
        } onCancel: {
            state.withLock { $0.cancelConsumer() }?.resume(returning: nil)
        }
    }

    /// Drops since the last call (for `dropped` reports), which resets, and the total.
    public func takeDroppedCount() -> (sinceLast: Int, total: Int) {
        state.withLock { $0.takeDroppedCount() }
    }

    /// Total dropped so far (does not reset the since-last count).
    public var droppedTotalSoFar: Int { state.withLock { $0.droppedTotal } }

    /// Elements waiting to be taken (not counting batches whose senders wait).
    public var count: Int { state.withLock { $0.queuedCount } }

    /// The cost of what is queued (not counting batches whose senders wait).
    public var queuedCost: Int { state.withLock { $0.queuedCost } }

    /// Ends the queue and drops what it holds (its senders resumed, the
    /// consumer's next batch is nil); returns how many elements were dropped.
    @discardableResult
    public func discard() -> Int {
        let (consumer, senders, dropped) = state.withLock { $0.discard() }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume(returning: false) }
        return dropped
    }

    /// Ends the queue; the consumer drains what is queued, then gets nil.
    /// Batches still waiting to be admitted are dropped and their senders resumed.
    public func finish() {
        let (consumer, senders) = state.withLock { $0.finish() }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume(returning: false) }
    }
}
