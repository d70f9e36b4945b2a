/// A WebSocket upgrade request, offered to the server's upgrade responder.
public struct WebSocketUpgradeRequest: Sendable {
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders

    public init(path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:]) {
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The first value of query item `name`, or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// The answer to a WebSocket upgrade request.
public enum WebSocketUpgradeDecision: Sendable {
    /// Upgrade, then run the handler with the connection; when the handler
    /// returns, the connection is closed (1000) if it is still open.
    case accept(@Sendable (ServerWebSocket) async -> Void)
    /// Refuse with an HTTP status (e.g. 401, 404, 503) and a short body.
    case reject(status: Int, body: String)
}
