import EntityStreamCore

/// The one ordered stream of events that every subscriber sees: connection
/// status, store changes, filter outcomes, errors, control responses and
/// analysis reports.
///
/// ``publish(_:)`` appends a batch to a queue bounded by count and by bytes
/// (``StreamEvent/retainedBytes``), in call order, and returns; under
/// back-pressure it waits while the queue is full (a cancelled publisher
/// stops waiting and its batch is dropped). One delivery task, started with
/// the bus, hands each batch to every subscriber in turn, so a subscriber
/// that applies back-pressure slows publishing, and every subscriber sees
/// the same order. Before the first subscriber (and whenever there is none)
/// batches are dropped and counted (``undeliveredCount``); a subscriber
/// joining later is told with a `dropped` event at the head of its first
/// batch. Publishing never blocks for want of a subscriber. ``close()``
/// delivers what is queued, then ends every subscription; a bus released
/// without ``close()`` does the same (its delivery task holds the queue and
/// the subscribers, never the bus).
public actor EventBus {
    private let subscribers = SubscriberList()
    private nonisolated let queue: BatchQueue<StreamEvent>
    private let delivery: Task<Void, Never>

    /// - Parameters:
    ///   - capacity: events queued before publishers wait.
    ///   - byteLimit: bytes of events queued before publishers wait.
    public init(capacity: Int = 16_384, byteLimit: Int = 1 << 20) {
        let queue = BatchQueue<StreamEvent>(capacity: capacity, costLimit: byteLimit, policy: .backPressure)
        self.queue = queue
        delivery = Self.deliver(queue, to: subscribers)
    }

    deinit {
        // The delivery task drains what is queued, then ends every subscription.
        queue.finish()
    }

    /// Adds a subscriber; it sees events published from now on (and a
    /// `dropped` event first if events went undelivered before it joined).
    public func subscribe(_ subscriber: Subscriber) {
        subscribers.add(subscriber)
    }

    /// Removes a subscriber and ends its subscription.
    public func unsubscribe(_ subscriber: Subscriber) {
        subscribers.remove(subscriber)
        subscriber.finish()
    }

    /// Queues `events` for every subscriber, keeping call order.
    public nonisolated func publish(_ events: [StreamEvent]) async {
        await queue.send(events, cost: StreamEvent.retainedBytes(of: events))
    }

    /// Queues `events` whose ``StreamEvent/retainedBytes`` the caller has
    /// summed already (the store does as it makes them).
    public nonisolated func publish(_ events: [StreamEvent], retainedBytes: Int) async {
        await queue.send(events, cost: retainedBytes)
    }

    /// Queues one event.
    public nonisolated func publish(_ event: StreamEvent) async {
        await queue.send([event], cost: event.retainedBytes)
    }

    /// The event kinds the subscribers want between them, every kind while
    /// there is none. A publisher may leave out events of other kinds: no
    /// subscriber would receive them. (A subscriber that joins later gets
    /// its kinds from the next batch made on.)
    public nonisolated var wantedKinds: EventKindMask { subscribers.wantedKinds }

    /// Events published while nobody subscribed, so far.
    public nonisolated var undeliveredCount: Int { subscribers.undeliveredCount }

    private static func deliver(_ queue: BatchQueue<StreamEvent>, to subscribers: SubscriberList) -> Task<Void, Never> {
        Task {
            while let (batch, cost) = await queue.nextWithCost() {
                let members = subscribers.membersForDelivery(of: batch.count)
                for member in members {
                    if member.missed > 0 {
                        await member.subscriber.deliver(missed: member.missed, total: member.missed, then: batch)
                    } else {
                        await member.subscriber.deliver(batch, retainedBytes: cost)
                    }
                }
            }
            subscribers.finishAll()
        }
    }

    /// Delivers everything published so far, then ends every subscription.
    public func close() async {
        queue.finish()
        await delivery.value
    }
}
