/// The pull request a consumer has open (the pure half of
/// ``JetStreamConsumer``'s fetching, a value type tests drive directly).
///
/// The consumer sends its own pull requests ("up to `batch` messages,
/// waiting at most `expires`") on a plain subscription to an inbox and takes
/// whatever arrives there into a growable array. It does not use libnats'
/// `natsSubscription_Fetch`: in libnats 3.4.1 (Debian 12's package) that
/// call writes past its fixed array of `batch` message pointers when more
/// than half a batch of an earlier request is already waiting when it
/// starts (it then compares its count against the shrunken request, never
/// stops at the batch, and keeps every later message), which corrupted the
/// heap (`malloc_consolidate(): invalid chunk size`); fixed upstream in
/// nats.c 3.9 (#749).
///
/// One request is open at a time. It is done when the server has delivered
/// all of it, when a status ends it (408: it expired; 404, 409: no
/// messages, a leadership change or a deleted consumer; no responders), or,
/// should that answer be lost with a connection, once `deadline` is past.
/// A message that arrives after that is still taken: nothing here is sized
/// by the request.
public struct PullRequests: Sendable, Hashable {
    /// Messages asked for per request.
    public let batch: Int
    /// How long the server keeps a request waiting for messages, milliseconds.
    public let expiresMilliseconds: Int64
    /// Messages the open request may still deliver (0: none open).
    public private(set) var owed = 0
    /// When an open request whose end never came is given up, milliseconds.
    public private(set) var deadline: Int64 = 0

    public init(batch: Int, expiresMilliseconds: Int64) {
        self.batch = batch
        self.expiresMilliseconds = expiresMilliseconds
    }

    /// Whether a request is open at `now`.
    public func isOpen(now: Int64) -> Bool { owed > 0 && now < deadline }

    /// The request to send now (its JSON body), or nil while one is open.
    public mutating func request(now: Int64) -> [UInt8]? {
        guard !isOpen(now: now) else { return nil }
        owed = batch
        // Its end (a 408) comes after `expires`; the same again covers a busy machine.
        deadline = now + 2 * expiresMilliseconds
        return Array("{\"batch\":\(batch),\"expires\":\(expiresMilliseconds * 1_000_000)}".utf8)
    }

    /// A message arrived (of the open request, or late from an earlier one).
    public mutating func received() {
        if owed > 0 { owed -= 1 }
    }

    /// A status message arrived; `code` is its three-digit status. 100 is an
    /// idle heartbeat; every other status ends the open request.
    public mutating func status(_ code: String) {
        if code != "100" { owed = 0 }
    }

    /// The request could not be sent, or no server answers for the consumer.
    public mutating func failed() {
        owed = 0
    }
}

/// When a consumer run with `--until-caught-up` has caught up (a value type
/// tests drive directly): once every message that was in the stream for it
/// when it started has been delivered, written and acknowledged.
///
/// JetStream tells each delivered message how many more are pending for the
/// consumer (`NumPending` in its acknowledgement subject). The catching-up
/// message is the first one delivered with none pending after it, or the
/// first at or past the stream's last sequence at start (so a stream that
/// keeps growing still ends); the run is caught up once the acknowledgements
/// cover it. A consumer with nothing pending and nothing unacknowledged at
/// start is caught up at once.
public struct CatchUp: Sendable, Hashable {
    /// The stream's last sequence when the consumer started.
    public let lastSequenceAtStart: UInt64
    /// Messages handed over so far.
    public private(set) var handed = 0
    /// Messages acknowledged so far.
    public private(set) var acknowledged = 0
    /// How many messages, counted from the first, end the catching up (nil: not yet known).
    public private(set) var target: Int?

    /// - Parameters:
    ///   - pendingAtStart: messages the server had for the consumer at start, not yet delivered.
    ///   - unacknowledgedAtStart: messages delivered and not acknowledged at start (delivered again).
    public init(lastSequenceAtStart: UInt64, pendingAtStart: UInt64, unacknowledgedAtStart: Int) {
        self.lastSequenceAtStart = lastSequenceAtStart
        if pendingAtStart == 0 && unacknowledgedAtStart == 0 { target = 0 }
    }

    /// A message was handed over, with its stream sequence and the messages pending after it.
    public mutating func handed(streamSequence: UInt64, pendingAfter: UInt64) {
        handed += 1
        if target == nil && (pendingAfter == 0 || streamSequence >= lastSequenceAtStart) { target = handed }
    }

    /// `count` more messages were acknowledged (oldest first).
    public mutating func acknowledged(_ count: Int) {
        acknowledged += count
    }

    /// Whether every message that was there at start has been acknowledged.
    public var isCaughtUp: Bool { target.map { acknowledged >= $0 } ?? false }
}
