import EntityStreamModel
import EntityStreamWhere
/// The stream filter's negotiation with the server as a value: which filter
/// is in effect, which requests wait for the server's answer, and how each
/// request ends (applied, rejected, timed out).
///
/// The connection actor (`StreamServiceConnection`) is its shell: it reports
/// what happened (a request, a filter message from the server, a deadline
/// passed, the socket closed) and carries out what each
/// method returns (send a message, resolve a waiting caller, publish an
/// unrequested filter). Rules:
/// - Without an open socket a request is kept for the next connection and
///   settles `applied` at once.
/// - A where clause the schema (when known) cannot evaluate is rejected
///   locally, and so is a change of `outSpatialReference` on an open socket
///   (fixed for a socket's life).
/// - Otherwise the request's `{"filter":…}` message is sent and the request
///   waits, until its deadline (the request's time plus the reply timeout).
///   The server's filter messages answer the waiting requests oldest first:
///   an `error` member (a non-empty array, a string or an object) rejects
///   it, anything else applies it and makes it the filter in effect. A filter
///   message when none waits is reported as the filter in effect.
/// Pure; times are epoch milliseconds passed in.
public struct FilterNegotiation: Sendable {
    /// What to do with a request.
    public enum RequestAction: Sendable {
        /// The request is settled already (locally applied or rejected).
        case settled(FilterOutcome)
        /// Send `message` on the socket; request `id` then waits for the
        /// server until `deadline` (epoch ms). If sending fails, report
        /// ``sendFailed(id:error:)``.
        case send(id: Int, message: String, deadline: Int64)
    }

    /// What a filter message from the server does.
    public enum ReplyAction: Sendable {
        /// It answers request `id`.
        case settle(id: Int, FilterOutcome)
        /// No request waits: report the filter in effect.
        case unrequested(FilterOutcome)
    }

    private struct Pending: Sendable {
        let id: Int
        let filter: StreamFilter
    }

    /// The filter in effect (or to be sent at the next connection).
    public private(set) var inEffect: StreamFilter
    /// How long the server has to answer a request, milliseconds.
    public let replyTimeoutMilliseconds: Int64
    private var pending: [Pending] = []
    private var nextID = 0

    public init(filter: StreamFilter, replyTimeoutMilliseconds: Int64) {
        inEffect = filter
        self.replyTimeoutMilliseconds = replyTimeoutMilliseconds
    }

    /// The requests waiting for the server, oldest first.
    public var waitingIDs: [Int] { pending.map(\.id) }

    /// A request to change the filter at `now`; `schema` is the stream's, when
    /// known, and `socketOpen` whether a socket is open to send it on.
    public mutating func request(_ filter: StreamFilter, schema: Schema?, socketOpen: Bool, now: Int64) -> RequestAction {
        if let schema, let whereText = filter.effectiveWhereClause {
            do { _ = try WhereClause(whereText, schema: schema) } catch {
                return .settled(FilterOutcome(result: .rejected, requested: filter, error: "invalid where clause: \(error)"))
            }
        }
        guard socketOpen else {
            inEffect = filter
            return .settled(FilterOutcome(result: .applied, requested: filter))
        }
        if filter.outSpatialReference != inEffect.outSpatialReference {
            return .settled(FilterOutcome(result: .rejected, requested: filter,
                                          error: "outSR is fixed for the life of a socket; reconnect to change it"))
        }
        let id = nextID
        nextID += 1
        pending.append(Pending(id: id, filter: filter))
        return .send(id: id, message: filter.filterMessage(), deadline: now + replyTimeoutMilliseconds)
    }

    /// The message of request `id` (just answered `send`) could not be sent: it is rejected.
    public mutating func sendFailed(id: Int, error: String) -> FilterOutcome {
        let text = "could not send: \(error)"
        return settle(id: id, result: .rejected, error: text)
            ?? FilterOutcome(result: .rejected, requested: inEffect, error: text)
    }

    /// The server sent a filter message (`{"filter":…}` or its error answer).
    public mutating func replyReceived(_ reply: JSONObject) -> ReplyAction {
        guard !pending.isEmpty else {
            return .unrequested(FilterOutcome(result: .applied, requested: inEffect, reply: .object(reply)))
        }
        let request = pending.removeFirst()
        if let error = reply["error"], !error.isNull, error != .array([]) {
            return .settle(id: request.id, FilterOutcome(result: .rejected, requested: request.filter,
                                                          reply: .object(reply), error: Self.errorText(error)))
        }
        inEffect = request.filter
        return .settle(id: request.id, FilterOutcome(result: .applied, requested: request.filter, reply: .object(reply)))
    }

    /// Request `id`'s deadline passed: it timed out, unless it is settled already (nil).
    public mutating func deadlinePassed(id: Int) -> FilterOutcome? {
        let seconds = Double(replyTimeoutMilliseconds) / 1000
        return settle(id: id, result: .timedOut, error: "the server did not answer within \(seconds) s")
    }

    /// The socket closed (or is being closed): every waiting request is
    /// rejected with `reason`, oldest first.
    public mutating func socketClosed(reason: String) -> [(id: Int, outcome: FilterOutcome)] {
        let settled = pending.map { ($0.id, FilterOutcome(result: .rejected, requested: $0.filter, error: reason)) }
        pending = []
        return settled
    }

    private mutating func settle(id: Int, result: FilterOutcome.Result, error: String) -> FilterOutcome? {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
        let request = pending.remove(at: index)
        return FilterOutcome(result: result, requested: request.filter, error: error)
    }

    /// The server's `error` member in words: an array's items joined, a string, or an object's `message`.
    static func errorText(_ error: JSONValue) -> String {
        error.arrayValue.map { $0.map { $0.stringValue ?? "\($0)" }.joined(separator: ", ") }
            ?? error.stringValue ?? error["message"]?.stringValue ?? "\(error)"
    }
}
