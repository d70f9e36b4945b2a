import CLibWebSockets

/// Routes a server context's callbacks: plain HTTP exchanges to the HTTP
/// responder, WebSocket upgrades to the upgrade responder and then to
/// ``ServerWebSocketSession``s.
///
/// Connections are looked up by their wsi, entered when first seen and
/// removed at `WSI_DESTROY`, so no callback can reach a finished session.
/// Service thread only.
final class ServerDispatcher: ServiceLoopDelegate, @unchecked Sendable {
    private let configuration: ServerConfiguration
    weak var loop: ServiceLoop?
    private var exchanges: [OpaquePointer: ServerHTTPExchange] = [:]
    private var pendingUpgrades: [OpaquePointer: (WebSocketUpgradeRequest, @Sendable (ServerWebSocket) async -> Void)] = [:]
    private var sockets: [OpaquePointer: ServerWebSocketSession] = [:]
    private var socketsByID: [Int: ServerWebSocketSession] = [:]
    private var exchangesByID: [Int: (OpaquePointer, ServerHTTPExchange)] = [:]
    private var dirty: [ServerWebSocketSession] = []
    /// Who waits for the end of the next service turn (``TransportServer/nextServiceTurn()``).
    private var turnWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextID = 1
    private var shuttingDown = false
    private let handlers: HandlerTasks

    init(configuration: ServerConfiguration, handlers: HandlerTasks) {
        self.configuration = configuration
        self.handlers = handlers
    }

    func webSocket(_ id: Int) -> ServerWebSocketSession? { socketsByID[id] }
    func markDirty(_ session: ServerWebSocketSession) { dirty.append(session) }

    /// The service thread's buffer for writes made of several pieces (one for every client: it is
    /// used by one write at a time, and libwebsockets copies what a socket does not take at once).
    private var gathered: [UInt8] = []

    /// Calls `body` with `write`'s bytes in one piece of memory: its only
    /// piece as it is, or its pieces copied one after another.
    func withContiguousBytes<R>(of write: ServerOutboundQueue.Write, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        if write.pieces.count == 1, let piece = write.pieces.first {
            return piece.bytes.withUnsafeBufferPointer { body($0.baseAddress! + piece.range.lowerBound, piece.range.count) }
        }
        gathered.removeAll(keepingCapacity: true)
        for piece in write.pieces { gathered.append(contentsOf: piece.bytes[piece.range]) }
        return gathered.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }


    func callback(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                  input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_HTTP:
            return beginHTTP(wsi: wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/")

        case LWS_CALLBACK_HTTP_BODY:
            guard let exchange = exchanges[wsi] else { return -1 }
            if !exchange.appendBody(UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)) {
                exchange.respond(HTTPServerResponse(status: 413, contentType: "text/plain",
                                                    text: "request body exceeds \(configuration.maximumRequestBodySize) bytes"))
                lws_callback_on_writable(wsi)
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let exchange = exchanges[wsi] else { return -1 }
            if !exchange.bodyTooLarge { runResponder(exchange, wsi: wsi) }
            return 0

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let exchange = exchanges[wsi] else { return 0 }
            return exchange.writeNext(wsi: wsi)

        case LWS_CALLBACK_CLOSED_HTTP:
            forgetExchange(wsi)
            return 0

        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi: wsi)

        case LWS_CALLBACK_ESTABLISHED:
            return establish(wsi: wsi)

        case LWS_CALLBACK_RECEIVE:
            sockets[wsi]?.receive(wsi: wsi, input: input, length: length)
            return 0

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            sockets[wsi]?.peerInitiatedClose(input: input, length: length)
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            return sockets[wsi]?.writeNext(wsi: wsi) ?? 0

        case LWS_CALLBACK_CLOSED:
            closeSocket(wsi)
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            closeSocket(wsi)
            forgetExchange(wsi)
            pendingUpgrades[wsi] = nil
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private func beginHTTP(wsi: OpaquePointer, path: String) -> Int32 {
        let isPost = lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0
        let isOptions = lws_hdr_total_length(wsi, WSI_TOKEN_OPTIONS_URI) > 0
        let request = HTTPServerRequest(
            method: isPost ? .post : isOptions ? .options : .get, path: path,
            query: HeaderTable.queryItems(of: wsi).map { (name: $0.0, value: $0.1) },
            headers: HeaderTable.headers(of: wsi, custom: configuration.customRequestHeaders))
        let exchange = ServerHTTPExchange(id: makeID(), request: request, bodyLimit: configuration.maximumRequestBodySize)
        forgetExchange(wsi)
        exchanges[wsi] = exchange
        exchangesByID[exchange.id] = (wsi, exchange)
        if !isPost { runResponder(exchange, wsi: wsi) }
        return 0
    }

    private func runResponder(_ exchange: ServerHTTPExchange, wsi: OpaquePointer) {
        // libwebsockets timed the request with its network timeout; the answer gets its own limit.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.responseTimeLimitSeconds))
        let responder = configuration.httpResponder
        let request = exchange.request
        let id = exchange.id
        guard let loop else { return }
        handlers.start {
            let response = await responder(request)
            loop.execute { [weak self] in self?.deliver(response, toExchange: id) }
        }
    }

    private func deliver(_ response: HTTPServerResponse, toExchange id: Int) {
        guard let (wsi, exchange) = exchangesByID[id], exchanges[wsi] === exchange else { return }
        exchange.respond(response)
        lws_callback_on_writable(wsi)
    }

    private func forgetExchange(_ wsi: OpaquePointer) {
        if let exchange = exchanges.removeValue(forKey: wsi) { exchangesByID[exchange.id] = nil }
    }

    private func confirmUpgrade(wsi: OpaquePointer) -> Int32 {
        if shuttingDown { return -1 }
        let path = HeaderTable.copy(wsi, WSI_TOKEN_GET_URI) ?? "/"
        let request = WebSocketUpgradeRequest(
            path: path, query: HeaderTable.queryItems(of: wsi).map { (name: $0.0, value: $0.1) },
            headers: HeaderTable.headers(of: wsi, custom: configuration.customRequestHeaders))
        switch configuration.webSocketResponder(request) {
        case .accept(let handler):
            pendingUpgrades[wsi] = (request, handler)
            return 0
        case .reject(let status, let body):
            return Self.refuseUpgrade(wsi: wsi, status: status, body: body)
        }
    }

    /// Refuses an upgrade with a complete HTTP/1.1 response (status line,
    /// length, `Connection: close`, the text body), written raw: at this
    /// point libwebsockets has not yet recorded the request's HTTP version,
    /// so its own status writer would say `HTTP/1.0`, which WebSocket
    /// clients reject as "not a valid HTTP response" instead of reporting
    /// the status. Returns non-zero so the connection closes after it.
    static func refuseUpgrade(wsi: OpaquePointer, status: Int, body: String) -> Int32 {
        let head = upgradeRefusalHead(status: status, bodyLength: body.utf8.count)
        var bytes = [UInt8](repeating: 0, count: Int(es_lws_pre()))
        bytes.append(contentsOf: head.utf8)
        bytes.append(contentsOf: body.utf8)
        let length = bytes.count - Int(es_lws_pre())
        let written = bytes.withUnsafeMutableBufferPointer { pointer in
            lws_write(wsi, pointer.baseAddress! + Int(es_lws_pre()), length, LWS_WRITE_HTTP_HEADERS)
        }
        return written < 0 ? -1 : 1
    }

    /// The status line and headers of an upgrade refusal.
    static func upgradeRefusalHead(status: Int, bodyLength: Int) -> String {
        "HTTP/1.1 \(status) \(HTTPStatusText.reason(status))\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + "content-length: \(bodyLength)\r\nconnection: close\r\n\r\n"
    }

    private func establish(wsi: OpaquePointer) -> Int32 {
        guard let loop, let (request, handler) = pendingUpgrades.removeValue(forKey: wsi) else { return -1 }
        if let bytes = configuration.sendBufferBytes { SocketSendBuffer.apply(bytes, to: lws_get_socket_fd(wsi)) }
        let session = ServerWebSocketSession(id: makeID(), wsi: wsi, request: request, configuration: configuration,
                                             loop: loop, dispatcher: self)
        sockets[wsi] = session
        socketsByID[session.id] = session
        let socket = ServerWebSocket(session: session)
        handlers.start {
            await handler(socket)
            await socket.close()
        }
        return 0
    }

    private func closeSocket(_ wsi: OpaquePointer) {
        guard let session = sockets.removeValue(forKey: wsi) else { return }
        socketsByID[session.id] = nil
        session.closed()
    }

    /// Resumes `waiter` at the end of the next service turn, which starts at once.
    func resumeAfterNextTurn(_ waiter: CheckedContinuation<Void, Never>) {
        turnWaiters.append(waiter)
        if let context = loop?.context { lws_cancel_service(context) }
    }

    func serviceTurnEnded() {
        if !turnWaiters.isEmpty {
            let waiters = turnWaiters
            turnWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        guard !dirty.isEmpty else { return }
        let sessions = dirty
        dirty = []
        for session in sessions { session.turnEnded() }
    }

    func beginShutdown() {
        shuttingDown = true
        for session in sockets.values { session.beginShutdown() }
        for wsi in exchanges.keys { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
    }

    var hasLiveConnections: Bool { !sockets.isEmpty || !exchanges.isEmpty }

    func contextWillBeDestroyed() {
        serviceTurnEnded()
        for waiter in turnWaiters { waiter.resume() }
        turnWaiters = []
        for (wsi, session) in sockets {
            socketsByID[session.id] = nil
            session.closed(contextDestroyed: true)
            _ = wsi
        }
        sockets = [:]
        exchanges = [:]
        exchangesByID = [:]
        pendingUpgrades = [:]
    }
}
