/// The rules of a ``BatchQueue`` as a value: admission by count and by cost
/// (bytes, given per batch by its sender), the
/// order of batches and of waiting senders, dropping under
/// ``OverflowPolicy/dropOldest``, one consumer at a time, cancellation and
/// the end of the queue.
///
/// Generic over what it stores for a waiting sender and for the waiting
/// consumer (continuations in the queue, plain values in tests), so tests
/// drive it directly. Each method says what the caller must resume.
struct BatchQueueState<Element, Sender, Consumer> {
    /// What a send does right away.
    enum SendAction {
        /// Queued; the sender goes on.
        case queued
        /// The consumer was waiting: hand it the batch (and its cost); the sender goes on.
        case handOff(Consumer, [Element], cost: Int)
        /// Full (or others wait already): the sender must wait with ``wait(_:cost:sender:id:)``.
        case mustWait
        /// The queue has ended: the batch is dropped.
        case finished
    }

    /// What a waiting sender's registration did.
    enum WaitAction {
        case stored
        /// Room appeared meanwhile: act as for ``SendAction``.
        case send(SendAction)
    }

    /// What the consumer gets.
    enum NextAction {
        /// A batch with its cost, and the waiting senders whose batches were admitted (resume them).
        case batch([Element], cost: Int, admitted: [Sender])
        /// Ended and drained.
        case finished
        /// Nothing queued: the consumer was stored.
        case stored
        /// Another consumer is already waiting: a programming error.
        case concurrentConsumer
    }

    private struct Queued {
        var elements: [Element]
        var cost: Int
    }

    private struct Waiting {
        var id: Int
        var batch: [Element]
        var cost: Int
        var sender: Sender
    }

    /// Elements admitted before the queue counts as full.
    let capacity: Int
    /// Cost (bytes) admitted before the queue counts as full.
    let costLimit: Int
    let policy: OverflowPolicy
    private var batches: [Queued] = []
    private var head = 0
    private var waiting: [Waiting] = []
    private var consumer: Consumer?
    private(set) var isFinished = false
    /// Cost of what is queued (not counting waiting senders' batches).
    private(set) var queuedCost = 0
    /// Elements queued.
    private(set) var queuedCount = 0
    private(set) var droppedSinceTaken = 0
    private(set) var droppedTotal = 0

    init(capacity: Int, costLimit: Int = .max, policy: OverflowPolicy) {
        self.capacity = max(1, capacity)
        self.costLimit = max(1, costLimit)
        self.policy = policy
    }

    var isEmpty: Bool { head == batches.count }
    /// At or over a limit: senders wait (or, dropping, the oldest go).
    var isFull: Bool { queuedCount >= capacity || queuedCost >= costLimit }
    private var isOver: Bool { queuedCount > capacity || queuedCost > costLimit }
    var hasWaitingSenders: Bool { !waiting.isEmpty }

    /// A sender offers `batch` of `cost`.
    mutating func send(_ batch: [Element], cost: Int) -> SendAction {
        if isFinished { return .finished }
        if policy == .backPressure && (isFull || !waiting.isEmpty) { return .mustWait }
        if let consumer {
            // The consumer waits, so nothing is queued: hand the batch over directly.
            self.consumer = nil
            return .handOff(consumer, batch, cost: cost)
        }
        push(batch, cost: cost)
        if policy == .dropOldest && isOver {
            let dropped = dropOldestToFit()
            droppedSinceTaken += dropped
            droppedTotal += dropped
        }
        return .queued
    }

    /// Registers a sender that must wait (its `id` lets cancellation find it).
    mutating func wait(_ batch: [Element], cost: Int, sender: Sender, id: Int) -> WaitAction {
        if isFinished { return .send(.finished) }
        if !isFull && waiting.isEmpty { return .send(send(batch, cost: cost)) }
        waiting.append(Waiting(id: id, batch: batch, cost: cost, sender: sender))
        return .stored
    }

    /// The waiting sender `id` was cancelled: its batch is dropped; resume it (if still waiting).
    mutating func cancelSender(id: Int) -> Sender? {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: index).sender
    }

    /// The consumer asks for the next batch.
    mutating func next(consumer: Consumer) -> NextAction {
        if self.consumer != nil { return .concurrentConsumer }
        if isEmpty {
            if !waiting.isEmpty {
                let first = waiting.removeFirst()
                return .batch(first.batch, cost: first.cost, admitted: [first.sender])
            }
            if isFinished { return .finished }
            self.consumer = consumer
            return .stored
        }
        let taken = pop()
        var admitted: [Sender] = []
        while !waiting.isEmpty && !isFull {
            let first = waiting.removeFirst()
            push(first.batch, cost: first.cost)
            admitted.append(first.sender)
        }
        return .batch(taken.elements, cost: taken.cost, admitted: admitted)
    }

    /// The waiting consumer was cancelled: resume it with nothing.
    mutating func cancelConsumer() -> Consumer? {
        defer { consumer = nil }
        return consumer
    }

    /// Ends the queue: the waiting consumer (resume with nil, when nothing is
    /// queued) and the waiting senders (their batches are dropped).
    mutating func finish() -> (consumer: Consumer?, senders: [Sender]) {
        isFinished = true
        let senders = waiting.map(\.sender)
        waiting = []
        let consumer = isEmpty ? self.consumer : nil
        if consumer != nil { self.consumer = nil }
        return (consumer, senders)
    }

    /// Ends the queue and drops everything in it, queued or waiting: what
    /// ``finish()`` returns, and how many elements were dropped.
    mutating func discard() -> (consumer: Consumer?, senders: [Sender], dropped: Int) {
        let dropped = queuedCount + waiting.reduce(0) { $0 + $1.batch.count }
        batches = []
        head = 0
        queuedCost = 0
        queuedCount = 0
        let (consumer, senders) = finish()
        return (consumer, senders, dropped)
    }

    /// Drops since the last call, which resets, and the total.
    mutating func takeDroppedCount() -> (sinceLast: Int, total: Int) {
        defer { droppedSinceTaken = 0 }
        return (droppedSinceTaken, droppedTotal)
    }

    private mutating func push(_ batch: [Element], cost: Int) {
        batches.append(Queued(elements: batch, cost: cost))
        queuedCost &+= cost
        queuedCount &+= batch.count
    }

    private mutating func pop() -> Queued {
        let batch = batches[head]
        batches[head] = Queued(elements: [], cost: 0)
        head += 1
        queuedCost -= batch.cost
        queuedCount -= batch.elements.count
        if head == batches.count {
            batches.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= batches.count {
            batches.removeFirst(head)
            head = 0
        }
        return batch
    }

    /// Drops the oldest elements until both limits are met; returns how many.
    private mutating func dropOldestToFit() -> Int {
        var dropped = 0
        while isOver && !isEmpty {
            var first = batches[head]
            // A batch's cost is known as a whole: its elements share it evenly.
            let each = first.elements.isEmpty ? 0 : first.cost / first.elements.count
            var removed = 0
            var removedCost = 0
            while removed < first.elements.count
                    && (queuedCount - removed > capacity || queuedCost - removedCost > costLimit) {
                removedCost += each
                removed += 1
            }
            if removed == first.elements.count {
                dropped += pop().elements.count
                continue
            }
            first.elements.removeFirst(removed)
            first.cost -= removedCost
            batches[head] = first
            queuedCost -= removedCost
            queuedCount -= removed
            dropped += removed
        }
        return dropped
    }
}
