import EntityStreamCore
import EntityStreamModel

/// Which consumed messages may be acknowledged: the pure half of
/// ``JetStreamConsumer`` (a value type tests drive directly).
///
/// The consumer acknowledges a message only once the observation it carried
/// has been stored and its line written: messages are handed to the
/// pipeline in stream order, each carrying 0 or 1 observations, and the
/// output counts the observation events it has written. Message i may be
/// acknowledged once the output has written as many observations as the
/// messages up to i carried. Acknowledgement is cumulative (JetStream's
/// "ack all": acknowledging sequence s acknowledges everything before it
/// on that consumer), so ``acknowledgeable(written:)`` answers the last
/// message that may be acknowledged and forgets everything up to it.
public struct AckTracker<Message>: Sendable where Message: Sendable {
    private var entries: [(required: Int, message: Message)] = []
    private var head = 0
    /// Observations handed over so far.
    public private(set) var handedObservations = 0

    public init() {}

    /// Messages handed over and not yet acknowledged.
    public var unacknowledged: Int { entries.count - head }

    /// A message was handed to the pipeline (after every earlier one).
    public mutating func handed(_ message: Message, observations: Int) {
        handedObservations += observations
        entries.append((handedObservations, message))
    }

    /// The newest message whose observations (and every earlier one's) are
    /// among the `written` ones, with the messages it acknowledges (itself
    /// included, oldest first) for the shell to release; nil when none is.
    public mutating func acknowledgeable(written: Int) -> (last: Message, covered: [Message])? {
        var end = head
        while end < entries.count, entries[end].required <= written { end += 1 }
        guard end > head else { return nil }
        let covered = entries[head..<end].map(\.message)
        head = end
        entries.releaseConsumed(head: &head)
        return (covered[covered.count - 1], covered)
    }
}
