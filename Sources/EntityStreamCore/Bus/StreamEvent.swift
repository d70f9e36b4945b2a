/// One event on the bus: what the command line prints as a JSON line and
/// what subscribers receive, in order.
public struct StreamEvent: Sendable {
    /// When it happened, epoch ms (for observations: when received).
    public var time: Int64
    public var payload: Payload

    public enum Payload: Sendable {
        case status(ConnectionStatusChange)
        case store(StoreEvent)
        case filter(FilterOutcome)
        case error(StreamErrorReport)
        case response(ControlResponse)
        /// A slow subscriber dropped `count` events (`total` so far).
        case dropped(count: Int, total: Int)
    }

    public init(time: Int64, payload: Payload) {
        self.time = time
        self.payload = payload
    }

    public var kind: EventKind {
        switch payload {
        case .status: return .status
        case .store(let event):
            switch event {
            case .entityReceived: return .entityReceived
            case .observation: return .observation
            case .observationPurged: return .observationPurged
            case .entityPurged: return .entityPurged
            }
        case .filter: return .filter
        case .error: return .error
        case .response: return .response
        case .dropped: return .dropped
        }
    }

    /// The entity this event is about, if any.
    public var entity: EntityReference? {
        guard case .store(let event) = payload else { return nil }
        switch event {
        case .entityReceived(let entity, _, _), .observation(let entity, _, _),
             .observationPurged(let entity, _, _, _), .entityPurged(let entity, _):
            return entity
        }
    }

    /// The observation this event carries, if any.
    public var observation: Observation? {
        guard case .store(let event) = payload else { return nil }
        switch event {
        case .entityReceived(_, _, let observation), .observation(_, _, let observation): return observation
        default: return nil
        }
    }
}

/// How a request to change the stream filter ended.
public struct FilterOutcome: Sendable {
    public enum Result: String, Sendable, Hashable {
        /// The server (or the local filter) now applies the requested filter.
        case applied
        /// The server answered with an error; the previous filter stays.
        case rejected
        /// No answer within 10 s.
        case timedOut = "timeout"
    }

    public var result: Result
    /// The filter as requested.
    public var requested: StreamFilter
    /// The server's reply, if it sent one.
    public var reply: JSONValue?
    public var error: String?

    public init(result: Result, requested: StreamFilter, reply: JSONValue? = nil, error: String? = nil) {
        self.result = result
        self.requested = requested
        self.reply = reply
        self.error = error
    }
}

/// A problem reported on the bus; the stream goes on.
public struct StreamErrorReport: Sendable {
    public enum Source: String, Sendable, Hashable {
        /// A message from the service could not be used (malformed JSON, not a feature, …).
        case message
        /// The connection or the service description.
        case connection
        /// An observation the store could not take (e.g. no track id).
        case store
        /// A control command on stdin.
        case control
        /// A line of a replayed recording.
        case recording
    }

    public var source: Source
    public var message: String
    /// How many errors from this source so far, this one included.
    public var count: Int

    public init(source: Source, message: String, count: Int) {
        self.source = source
        self.message = message
        self.count = count
    }
}

/// The answer to a control command, carrying the command's `id`.
public struct ControlResponse: Sendable {
    public var id: JSONValue
    public var command: String
    public var ok: Bool
    public var result: JSONValue?
    public var error: String?

    public init(id: JSONValue, command: String, ok: Bool, result: JSONValue? = nil, error: String? = nil) {
        self.id = id
        self.command = command
        self.ok = ok
        self.result = result
        self.error = error
    }
}
