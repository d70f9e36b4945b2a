/// Where a new durable consumer starts and which share of the stream it takes.
public struct ConsumerSettings: Sendable, Hashable {
    public enum Start: Sendable, Hashable {
        /// Messages published after the consumer is created (the default).
        case new
        /// The whole stream (`--from-start`).
        case first
        /// Messages stored at or after this time, epoch milliseconds (`--since TIME`).
        case time(Int64)
        /// From this stream sequence on (`--from-sequence N`).
        case sequence(UInt64)
    }

    /// The durable consumer's name (`--durable NAME`); nil: an ephemeral consumer.
    public var durable: String?
    public var start = Start.new
    public var partition: TrackPartition?
    /// Messages fetched per request.
    public var batch = 1024
    /// A fetch takes no more message once its messages hold this many
    /// bytes (at most 1 GiB): what bounds a batch's memory when messages
    /// are large (a NATS message may hold up to 64 MiB).
    public var maximumBatchBytes = 64 << 20
    /// Unacknowledged messages the server lets the consumer hold (bounds memory).
    public var maximumAckPending = 16_384
    /// Seconds before the server delivers an unacknowledged message again:
    /// how soon a restarted consumer gets what its predecessor fetched and
    /// never wrote, and how long a live consumer may hold a message under
    /// back-pressure before it comes again (marked redelivered).
    public var ackWaitSeconds = 5
    /// Stop once every message there was for the consumer at start has been
    /// delivered, written and acknowledged (`--until-caught-up`; see ``CatchUp``).
    public var untilCaughtUp = false

    public init() {}
}
