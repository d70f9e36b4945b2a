import EntityStreamCore
import EntityStreamLocking

/// The subscribers an ``EventBus`` delivers to, shared between the bus and
/// its delivery task so that the task never keeps the bus alive; it also
/// counts the events delivered to nobody. Thread-safe; order of
/// subscription is delivery order.
final class SubscriberList: Sendable {
    struct Member {
        let subscriber: Subscriber
        /// Events this subscriber missed before it joined (told once, then 0).
        var missed: Int
    }

    private struct State {
        var members: [Member] = []
        var undelivered = 0
        /// The kinds the members' filters admit between them; every kind
        /// while there is no member (so that what goes undelivered is counted).
        var wanted = EventKindMask.all

        mutating func updateWanted() {
            wanted = members.isEmpty ? .all : members.reduce(.none) { $0.union($1.subscriber.filter.kindMask) }
        }
    }

    private let state = LockedState(State())

    func add(_ subscriber: Subscriber) {
        state.withLock { state in
            state.members.append(Member(subscriber: subscriber, missed: state.undelivered))
            state.updateWanted()
        }
    }

    func remove(_ subscriber: Subscriber) {
        state.withLock { state in
            state.members.removeAll { $0.subscriber === subscriber }
            state.updateWanted()
        }
    }

    /// The event kinds some member wants (every kind when there is none).
    var wantedKinds: EventKindMask { state.withLock { $0.wanted } }

    /// Who receives a batch of `count` events now; with nobody, the events are counted as undelivered.
    func membersForDelivery(of count: Int) -> [Member] {
        state.withLock { state in
            if state.members.isEmpty { state.undelivered += count }
            let members = state.members
            for index in state.members.indices { state.members[index].missed = 0 }
            return members
        }
    }

    var undeliveredCount: Int { state.withLock { $0.undelivered } }

    /// Ends every subscription (each subscriber still yields what it queued).
    func finishAll() {
        let members = state.withLock { $0.members }
        for member in members { member.subscriber.finish() }
    }
}
