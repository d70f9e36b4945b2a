import EntityStreamCore

/// The one ordered stream of events that every subscriber sees: connection
/// status, store changes, filter outcomes, errors, control responses (and,
/// in later issues, analysis results).
///
/// ``publish(_:)`` appends a batch to a bounded queue, in call order, and
/// returns; under back-pressure it waits while the queue is full. One
/// delivery task hands each batch to every subscriber in turn, so a
/// subscriber that applies back-pressure slows publishing, and every
/// subscriber sees the same order. ``close()`` delivers what is queued,
/// then ends every subscription.
public actor EventBus {
    private var subscribers: [Subscriber] = []
    private nonisolated let queue: BatchQueue<StreamEvent>
    private var delivery: Task<Void, Never>?

    public init(capacity: Int = 16_384) {
        queue = BatchQueue(capacity: capacity, policy: .backPressure)
    }

    /// Adds a subscriber; it sees events published from now on.
    public func subscribe(_ subscriber: Subscriber) {
        subscribers.append(subscriber)
        if delivery == nil {
            delivery = Task { await self.deliverUntilClosed() }
        }
    }

    public func unsubscribe(_ subscriber: Subscriber) {
        subscribers.removeAll { $0 === subscriber }
        subscriber.finish()
    }

    /// Queues `events` for every subscriber, keeping call order.
    public nonisolated func publish(_ events: [StreamEvent]) async {
        await queue.send(events)
    }

    /// Queues one event.
    public nonisolated func publish(_ event: StreamEvent) async {
        await queue.send([event])
    }

    private func deliverUntilClosed() async {
        while let batch = await queue.next() {
            for subscriber in subscribers {
                await subscriber.deliver(batch)
            }
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Delivers everything published so far, then ends every subscription.
    public func close() async {
        queue.finish()
        if let delivery {
            await delivery.value
        } else {
            for subscriber in subscribers { subscriber.finish() }
        }
    }

    public var subscriberCount: Int { subscribers.count }
}
