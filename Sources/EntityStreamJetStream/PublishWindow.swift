/// The bounded window of published, not yet acknowledged JetStream
/// messages, and what to do with each answer: the pure half of
/// ``JetStreamPublisher`` (a value type tests drive with their own clock).
///
/// Messages are numbered in the order they are sent; a message enters with
/// ``sent(_:)`` (only while ``hasRoom``) and stays in flight until it is
/// stored (``stored(_:duplicate:)``) or abandoned. A failure that may pass
/// (no acknowledgement in time, no responders while a stream leader is
/// elected, a lost connection) keeps the message and stops new sends
/// ("go back N"): once every message sent before has been answered, the
/// failed ones are sent again together, oldest first, and only then new
/// ones. So a broker that dies mid-stream and comes back still receives each
/// track's observations in order — what it stored before the failure,
/// then the failed messages in their order, then the rest — and the
/// window also bounds what an outage holds: while it is full or holding,
/// the publisher takes no events (back-pressure). Resent messages carry the
/// same `Nats-Msg-Id`, so one the server stored before its acknowledgement
/// was lost is stored once (the stream's duplicate window). A rejection by
/// the server (an error code) abandons the message: counted in
/// ``abandoned`` and reported by the shell, never silent.
public struct PublishWindow<Message>: Sendable where Message: Sendable {
    /// Why a publish was not acknowledged.
    public enum Failure: Sendable, Hashable {
        /// No acknowledgement within the acknowledgement wait.
        case timeout
        /// Nobody answered the subject (no stream, or no leader for a moment).
        case noResponders
        /// The connection was lost or is reconnecting.
        case connection
        /// The server answered with an error (JetStream error code and text).
        case rejected(code: Int, text: String)
        /// The client refused the message: larger than the server's `max_payload` (`limit` bytes).
        case tooLarge(limit: Int)
    }

    /// What the shell does with a failed message.
    public enum Decision: Sendable, Hashable {
        /// Kept, to be sent again with the others once everything is answered.
        case retry
        /// Given up; the reason is reported.
        case abandon(String)
    }

    public let capacity: Int
    public private(set) var stored = 0
    public private(set) var duplicates = 0
    public private(set) var resent = 0
    public private(set) var abandoned = 0
    /// Sequence numbers sent and not yet answered, with when each was last sent.
    private var outstanding: [UInt64: Int64] = [:]
    /// Sends in order (sequence, time), oldest first from `logHead`: finds the
    /// oldest unanswered message for the acknowledgement timeout. A message sent
    /// again has an entry per send; only its latest counts (``oldestUnansweredSentAt()``).
    private var log: [(sequence: UInt64, sentAt: Int64)] = []
    private var logHead = 0
    /// Failed messages by sequence number, to be sent again in order.
    private var retries: [UInt64: Message] = [:]
    /// Not before this time (the caller's milliseconds) are retries sent.
    private var retryNotBefore: Int64 = .min
    /// When the last round of retries went out: the next waits ``minimumRetryInterval`` after it.
    private var lastRetryRound: Int64?

    /// The least time (milliseconds) between two rounds of retries, whatever failed: no failure,
    /// however fast it comes back, resends faster than one window per this interval.
    public static var minimumRetryInterval: Int64 { 250 }

    public init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    /// Messages sent and not yet stored or abandoned (answered or not).
    public var inFlight: Int { outstanding.count + retries.count }
    /// New messages may be sent: room in the window and no failure being recovered.
    public var hasRoom: Bool { retries.isEmpty && inFlight < capacity }
    /// Nothing in flight: everything sent was stored or abandoned.
    public var isDrained: Bool { inFlight == 0 }
    public var waitingRetries: Int { retries.count }

    /// Message `sequence` was handed to the client at `now` (new messages only while ``hasRoom``).
    public mutating func sent(_ sequence: UInt64, at now: Int64) {
        outstanding[sequence] = now
        log.append((sequence, now))
    }

    /// When the oldest unanswered message was sent (nil: none is unanswered).
    /// Past the acknowledgement wait, the shell takes every unanswered
    /// message back from the client and reports each as a ``Failure/timeout``.
    /// The entry of an earlier send of a message sent again is skipped: a message
    /// is due from its latest send (else one held through an outage would look
    /// overdue as soon as it was resent, be taken back before its acknowledgement
    /// could come and be resent at once, over and over).
    public mutating func oldestUnansweredSentAt() -> Int64? {
        while logHead < log.count, outstanding[log[logHead].sequence] != log[logHead].sentAt { logHead += 1 }
        if logHead == log.count {
            log.removeAll(keepingCapacity: true)
            logHead = 0
            return nil
        }
        if logHead > 4096 && logHead * 2 > log.count {
            log.removeFirst(logHead)
            logHead = 0
        }
        return log[logHead].sentAt
    }

    /// The server stored message `sequence` (or had it already: `duplicate`).
    public mutating func stored(_ sequence: UInt64, duplicate: Bool) {
        guard outstanding.removeValue(forKey: sequence) != nil else { return }
        if duplicate { duplicates += 1 } else { stored += 1 }
    }

    public static func retryDelay(for failure: Failure) -> Int64 {
        switch failure {
        case .timeout, .rejected, .tooLarge: return 0
        case .noResponders, .connection: return 250
        }
    }

    /// Message `sequence` failed at `now`: kept for sending again, or abandoned.
    @discardableResult
    public mutating func failed(_ sequence: UInt64, _ message: Message, _ failure: Failure, now: Int64) -> Decision {
        outstanding.removeValue(forKey: sequence)
        switch failure {
        case .rejected(let code, let text):
            abandoned += 1
            return .abandon("JetStream rejected a message (error \(code)): \(text)")
        case .tooLarge(let limit):
            abandoned += 1
            return .abandon("a message is larger than the server takes (max_payload \(limit) bytes)")
        case .timeout, .noResponders, .connection:
            retries[sequence] = message
            retryNotBefore = max(retryNotBefore, now + Self.retryDelay(for: failure))
            return .retry
        }
    }

    /// A message was refused before it was sent (too large): counted as abandoned.
    public mutating func refused() {
        abandoned += 1
    }

    /// When the failed messages may be sent again: every earlier message
    /// answered, the failure's delay passed and ``minimumRetryInterval`` gone
    /// since the last round; nil while that is not known
    /// yet (messages still outstanding) or nothing failed.
    public var retriesDue: Int64? {
        guard !retries.isEmpty, outstanding.isEmpty else { return nil }
        guard let lastRetryRound else { return retryNotBefore }
        return max(retryNotBefore, lastRetryRound + Self.minimumRetryInterval)
    }

    /// The failed messages, oldest first, once they are due at `now`; they
    /// are outstanding again and count as resent.
    public mutating func takeDueRetries(now: Int64) -> [(sequence: UInt64, message: Message)] {
        guard let due = retriesDue, due <= now else { return [] }
        let ordered = retries.sorted { $0.key < $1.key }.map { (sequence: $0.key, message: $0.value) }
        retries.removeAll(keepingCapacity: true)
        lastRetryRound = now
        for entry in ordered {
            outstanding[entry.sequence] = now
            log.append((entry.sequence, now))
        }
        resent += ordered.count
        return ordered
    }
}
