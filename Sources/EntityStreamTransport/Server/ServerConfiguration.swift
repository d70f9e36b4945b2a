/// How a ``TransportServer`` listens and treats its clients.
public struct ServerConfiguration: Sendable {
    /// The address to listen on, exactly (see ``ListenAddress``): loopback by
    /// default; nil, `::` or `*` for every interface.
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
    /// Request headers libwebsockets does not know by name (it parses about
    /// 100 common ones) that ``HTTPServerRequest/headers`` and
    /// ``WebSocketUpgradeRequest/headers`` should carry, e.g.
    /// `X-Esri-Authorization` or `Access-Control-Request-Headers`.
    public var customRequestHeaders: [String] = []
    /// Largest POST body accepted (413 beyond it).
    public var maximumRequestBodySize = 16 * 1024 * 1024
    /// Seconds a client may take to send a request's headers and body, and
    /// may hold an idle connection before its first request (at most 10 s).
    public var networkTimeoutSeconds = 20
    /// Seconds one answer may take, from the request handed to
    /// ``httpResponder`` to its last byte written, before the connection is
    /// closed. libwebsockets puts ``networkTimeoutSeconds`` on a request
    /// before handing it over; this replaces it, so that a query streaming a
    /// large file is not cut off. 600 s is ArcGIS Server's default longest
    /// time a client may use a service.
    public var responseTimeLimitSeconds = 600
    /// Each accepted WebSocket connection's kernel send buffer (`SO_SNDBUF`)
    /// in bytes; nil: `ENTITYSTREAM_SERVER_SEND_BUFFER`, else the kernel's
    /// autotuning. A test seam (see ``SocketSendBuffer``).
    package var sendBufferBytes: Int?

    public init() {}
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
