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
/// then ends every subscription; a bus released without ``close()`` does
/// the same (its delivery task holds the queue and the subscribers, never
/// the bus).
public actor EventBus {
    private let subscribers = SubscriberList()
    private nonisolated let queue: BatchQueue<StreamEvent>
    private var delivery: Task<Void, Never>?

    public init(capacity: Int = 16_384) {
        queue = BatchQueue(capacity: capacity, policy: .backPressure)
    }

    deinit {
        // The delivery task drains what is queued, then ends every subscription.
        queue.finish()
    }

    /// Adds a subscriber; it sees events published from now on.
    public func subscribe(_ subscriber: Subscriber) {
        subscribers.add(subscriber)
        if delivery == nil {
            delivery = Self.deliver(queue, to: subscribers)
        }
    }

    /// Removes a subscriber and ends its subscription.
    public func unsubscribe(_ subscriber: Subscriber) {
        subscribers.remove(subscriber)
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

    private static func deliver(_ queue: BatchQueue<StreamEvent>, to subscribers: SubscriberList) -> Task<Void, Never> {
        Task {
            while let batch = await queue.next() {
                for subscriber in subscribers.all {
                    await subscriber.deliver(batch)
                }
            }
            subscribers.finishAll()
        }
    }

    /// Delivers everything published so far, then ends every subscription.
    public func close() async {
        queue.finish()
        if let delivery {
            await delivery.value
        } else {
            subscribers.finishAll()
        }
    }
}
