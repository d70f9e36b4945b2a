import EntityStreamModel
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
