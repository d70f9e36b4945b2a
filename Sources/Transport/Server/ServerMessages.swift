/// An HTTP request as a ``TransportServer`` hands it to its responder.
public struct HTTPServerRequest: Sendable {
    public var method: HTTPMethod
    /// The decoded path, without the query.
    public var path: String
    /// Decoded query items in order (`+` and `%XX` decoded).
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: HTTPMethod, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first value of query item `name` (case-sensitive), or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Form fields of a POST with an `application/x-www-form-urlencoded` body
    /// (empty when the body is not a valid form).
    public var formFields: [(String, String)] {
        PercentEncoding.parseForm(String(decoding: body, as: UTF8.self)) ?? []
    }
}

/// What a responder answers to an ``HTTPServerRequest``.
public struct HTTPServerResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int = 200, contentType: String = "application/json", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String = "application/json", headers: HTTPHeaders = [:], text: String) {
        self.init(status: status, contentType: contentType, headers: headers, body: Array(text.utf8))
    }
}

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

/// What a server does when a WebSocket client reads slower than the server
/// sends and its bounded outbound queue is full.
public enum SlowClientPolicy: Sendable, Hashable {
    /// `send` suspends until the queue has room: the sender slows to that
    /// client's pace (other clients are unaffected).
    case waitForSpace
    /// The oldest queued messages are dropped (and counted) to make room.
    case dropOldest
    /// The client is disconnected with close code 1008.
    case disconnect
}

/// Where a server's TLS certificate and private key are (PEM files).
public struct TLSFiles: Sendable, Hashable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

/// How a ``TransportServer`` listens and treats its clients.
public struct ServerConfiguration: Sendable {
    /// Interface address to listen on; loopback by default, nil for all.
    public var host: String? = "127.0.0.1"
    /// 0 picks a free port; read it back from ``TransportServer/port``.
    public var port: Int = 0
    /// Serve https/wss with these files when set.
    public var tls: TLSFiles?
    /// Answers plain HTTP requests (GET and POST).
    public var httpResponder: @Sendable (HTTPServerRequest) async -> HTTPServerResponse = { _ in
        HTTPServerResponse(status: 404, contentType: "text/plain", text: "not found")
    }
    /// Decides WebSocket upgrades; runs on the service thread, so keep it quick.
    public var webSocketResponder: @Sendable (WebSocketUpgradeRequest) -> WebSocketUpgradeDecision = { _ in
        .reject(status: 404, body: "no WebSocket here")
    }
    /// Bytes queued per WebSocket client before ``slowClientPolicy`` applies.
    public var outboundQueueLimit = 4 * 1024 * 1024
    public var slowClientPolicy = SlowClientPolicy.waitForSpace
    /// Send messages longer than this as several frames (nil: one frame each).
    public var fragmentSize: Int?
    /// Largest message accepted from a client (close 1009 beyond it).
    public var maximumMessageSize = 16 * 1024 * 1024
    /// Unconsumed bytes per client after which its reading pauses.
    public var receiveBufferLimit = 1024 * 1024
    /// Largest POST body accepted (413 beyond it).
    public var maximumRequestBodySize = 16 * 1024 * 1024

    public init() {}
}
