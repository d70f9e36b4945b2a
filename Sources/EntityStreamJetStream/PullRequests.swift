/// The pull requests a consumer has open (the pure half of
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
/// Each request is bounded by bytes as well as by count (`max_bytes`,
/// ``maximumBytes``): the server delivers messages while they fit and ends
/// the request with a 409 "Message Size Exceeds MaxBytes" at the first that
/// does not. With ``depth`` requests open, what the server has sent and the
/// client holds stays under `depth` × ``maximumBytes`` however large the
/// messages are (the client's own queue for the subscription is unbounded:
/// a message it dropped would later be acknowledged unseen).
///
/// Two requests are open at a time (``depth``): the next is on its way
/// while the current one is delivered, so the server streams without
/// waiting a round trip for each batch. The server answers them in order.
/// A request is done when the server has delivered all of it, when a
/// status ends it (408: it expired; 409 "Message Size Exceeds MaxBytes":
/// its bytes are used up; 404, other 409s: no messages, a leadership
/// change or a deleted consumer, which ends every open request; no
/// responders), or, should that answer be lost with a connection, once its
/// deadline is past. (A request whose messages fill ``maximumBytes``
/// exactly ends without a status; its deadline ends it here.) A message
/// that arrives after that is still taken: nothing here is sized by the
/// request.
public struct PullRequests: Sendable, Hashable {
    /// One open request: what it may still deliver, and when it is given up (milliseconds).
    public struct Open: Sendable, Hashable {
        public var owed: Int
        public var deadline: Int64
        /// Messages it has delivered.
        public var delivered = 0
    }

    /// What a status message did to the open requests.
    public enum StatusOutcome: Sendable, Hashable {
        /// Requests ended, or nothing changed (a heartbeat).
        case handled
        /// The next message does not fit in a whole request's ``maximumBytes``
        /// (a request ended on it before delivering anything): asking again
        /// would end the same way.
        case messageLargerThanRequest
    }

    /// The status description of a request whose bytes are used up (nats-server 2.9).
    public static let bytesUsedUp = "Message Size Exceeds MaxBytes"

    /// Messages asked for per request.
    public let batch: Int
    /// Bytes asked for per request (`max_bytes`: the server counts each message's subject,
    /// reply subject, headers and data).
    public let maximumBytes: Int
    /// How long the server keeps a request waiting for messages, milliseconds.
    public let expiresMilliseconds: Int64
    /// Requests open at once.
    public let depth: Int
    /// The open requests, oldest (the one being delivered) first.
    public private(set) var open: [Open] = []

    public init(batch: Int, maximumBytes: Int, expiresMilliseconds: Int64, depth: Int = 2) {
        self.batch = batch
        self.maximumBytes = max(1, maximumBytes)
        self.expiresMilliseconds = expiresMilliseconds
        self.depth = max(1, depth)
    }

    /// Messages the open requests may still deliver (0: none open).
    public var owed: Int { open.reduce(0) { $0 + $1.owed } }

    /// Whether a request is open at `now`.
    public func isOpen(now: Int64) -> Bool { open.contains { now < $0.deadline } }

    /// The request to send now (its JSON body), or nil while ``depth`` are open.
    public mutating func request(now: Int64) -> [UInt8]? {
        // An end that never came (lost with a connection): given up.
        open.removeAll { now >= $0.deadline }
        guard open.count < depth else { return nil }
        // Its end (a 408) comes after `expires`; the same again covers a busy machine.
        open.append(Open(owed: batch, deadline: now + 2 * expiresMilliseconds))
        return Self.body(batch: batch, maximumBytes: maximumBytes, expiresMilliseconds: expiresMilliseconds)
    }

    /// A pull request's JSON body.
    public static func body(batch: Int, maximumBytes: Int, expiresMilliseconds: Int64) -> [UInt8] {
        Array("{\"batch\":\(batch),\"max_bytes\":\(maximumBytes),\"expires\":\(expiresMilliseconds * 1_000_000)}".utf8)
    }

    /// A message arrived (of the oldest open request, or late from an earlier one).
    public mutating func received() {
        guard !open.isEmpty else { return }
        open[0].owed -= 1
        open[0].delivered += 1
        if open[0].owed == 0 { open.removeFirst() }
    }

    /// A status message arrived; `code` is its three-digit status and
    /// `description` the text after it. 100 is an idle heartbeat; 408 ends
    /// the oldest request (it expired: the server expires them in the order
    /// they came), and so does a 409 saying its bytes are used up
    /// (``bytesUsedUp``); any other ends them all.
    @discardableResult
    public mutating func status(_ code: String, description: String = "") -> StatusOutcome {
        switch code {
        case "100": break
        case "408": if !open.isEmpty { open.removeFirst() }
        case "409" where description.hasPrefix(Self.bytesUsedUp):
            guard !open.isEmpty else { break }
            let ended = open.removeFirst()
            if ended.delivered == 0 { return .messageLargerThanRequest }
        default: open.removeAll()
        }
        return .handled
    }

    /// A request could not be sent, or no server answers for the consumer.
    public mutating func failed() {
        open.removeAll()
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
