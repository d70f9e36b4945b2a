/// The bounded window of published, not yet acknowledged JetStream
/// messages, and what to do with each answer: the pure half of
/// ``JetStreamPublisher`` (a value type tests drive with their own clock).
///
/// A message enters with ``sent()`` (only while ``hasRoom``) and stays in
/// flight until it is stored (``stored(duplicate:)``) or abandoned.
/// A failure that may pass (no acknowledgement in time, no responders while
/// a stream leader is elected, a lost connection) schedules the message to
/// be sent again after ``retryDelay(for:)``: it stays in the window, so the
/// window also bounds what a broker outage holds, and the publisher stops
/// taking events (back-pressure) until the broker answers again. A
/// rejection by the server (an error code: the stream does not take this
/// message) abandons it: counted in ``abandoned`` and reported by the shell,
/// never silently. Resent messages carry the same `Nats-Msg-Id`, so a
/// message the server did store before its acknowledgement was lost is
/// stored once (the stream's duplicate window).
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
    }

    /// What the shell does with a failed message.
    public enum Decision: Sendable, Hashable {
        /// Send it again at this time (milliseconds, the caller's clock).
        case retry(at: Int64)
        /// Give it up; the reason is reported.
        case abandon(String)
    }

    public let capacity: Int
    public private(set) var inFlight = 0
    public private(set) var stored = 0
    public private(set) var duplicates = 0
    public private(set) var resent = 0
    public private(set) var abandoned = 0
    /// Messages waiting to be sent again, in the order they failed.
    private var retries: [(due: Int64, message: Message)] = []
    private var retryHead = 0

    public init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    public var hasRoom: Bool { inFlight < capacity }
    /// Nothing in flight: everything sent was stored or abandoned.
    public var isDrained: Bool { inFlight == 0 }
    public var waitingRetries: Int { retries.count - retryHead }

    /// A message was handed to the client (call only while ``hasRoom``).
    public mutating func sent() {
        precondition(hasRoom, "PublishWindow.sent() without room")
        inFlight += 1
    }

    /// The server stored the message (or had it already: `duplicate`).
    public mutating func stored(duplicate: Bool) {
        precondition(inFlight > 0, "PublishWindow: an acknowledgement with nothing in flight")
        inFlight -= 1
        if duplicate { duplicates += 1 } else { stored += 1 }
    }

    public static func retryDelay(for failure: Failure) -> Int64 {
        switch failure {
        case .timeout: return 0
        case .noResponders, .connection: return 250
        case .rejected: return 0
        }
    }

    /// A message failed at `now`: scheduled again, or abandoned.
    @discardableResult
    public mutating func failed(_ message: Message, _ failure: Failure, now: Int64) -> Decision {
        switch failure {
        case .rejected(let code, let text):
            precondition(inFlight > 0, "PublishWindow: a failure with nothing in flight")
            inFlight -= 1
            abandoned += 1
            return .abandon("JetStream rejected a message (error \(code)): \(text)")
        case .timeout, .noResponders, .connection:
            let due = now + Self.retryDelay(for: failure)
            retries.append((due, message))
            return .retry(at: due)
        }
    }

    /// The retries due at `now`, oldest first; each counts as resent.
    public mutating func takeDueRetries(now: Int64) -> [Message] {
        var due: [Message] = []
        while retryHead < retries.count, retries[retryHead].due <= now {
            due.append(retries[retryHead].message)
            retryHead += 1
        }
        if retryHead == retries.count {
            retries.removeAll(keepingCapacity: true)
            retryHead = 0
        }
        resent += due.count
        return due
    }

    /// When the next retry is due (nil: none waiting). Retries are not
    /// sorted by due time, so this is the earliest over all of them.
    public var nextRetryDue: Int64? {
        retries[retryHead...].map(\.due).min()
    }
}
