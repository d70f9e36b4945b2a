import Locking

/// The subscribers an ``EventBus`` delivers to, shared between the bus and
/// its delivery task so that the task never keeps the bus alive.
/// Thread-safe; order of subscription is delivery order.
final class SubscriberList: Sendable {
    private let members = LockedState<[Subscriber]>([])

    var all: [Subscriber] { members.withLock { $0 } }

    func add(_ subscriber: Subscriber) { members.withLock { $0.append(subscriber) } }

    func remove(_ subscriber: Subscriber) { members.withLock { $0.removeAll { $0 === subscriber } } }

    /// Ends every subscription (each subscriber still yields what it queued).
    func finishAll() { for subscriber in all { subscriber.finish() } }
}
