import CLibWebSockets

/// An open client WebSocket connection.
///
/// Read messages from ``inbound`` (batches, from one task); send from any
/// task with ``send(_:)``; end it with ``close(code:reason:)``, which returns
/// once the close handshake is done. ``closed()`` reports how it ended.
/// Writes are queued in order and performed on the service thread, one
/// `lws_write` per WRITEABLE callback. Thread-safe.
public final class WebSocketConnection: Sendable {
    public let url: TransportURL
    /// Incoming messages, in batches. See ``WebSocketInbound``.
    public let inbound: WebSocketInbound
    let session: ClientWebSocketSession

    init(session: ClientWebSocketSession) {
        self.session = session
        self.url = session.url
        self.inbound = WebSocketInbound(channel: session.inbound)
    }

    /// Bytes received but not yet taken by the consumer of ``inbound``; it
    /// stays near ``WebSocketConfiguration/receiveBufferLimit`` because reading
    /// pauses beyond it.
    public var bufferedInboundBytes: Int { session.inbound.bufferedBytes }

    /// Queues a text message. Throws ``TransportError/notConnected`` once the
    /// connection is closing or closed.
    public func send(_ text: String) async throws(TransportError) {
        var buffer = [UInt8](repeating: 0, count: Int(es_lws_pre()))
        buffer.append(contentsOf: text.utf8)
        try enqueue(buffer)
    }

    private func enqueue(_ framed: [UInt8]) throws(TransportError) {
        let wake = try session.outbound.withLock { (state: inout ClientWebSocketSession.Outbound) throws(TransportError) -> Bool in
            guard !state.closed, state.closeRequest == nil else { throw .notConnected }
            state.messages.append(framed)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake { requestWritable() }
    }

    private func requestWritable() {
        let session = self.session
        session.loop.execute { session.requestWritable() }
    }

    /// Sends a close frame after any queued messages and waits until the
    /// connection has closed. Safe to call more than once, and after the
    /// peer closed.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        let wake = session.outbound.withLock { state -> Bool in
            guard !state.closed, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake { requestWritable() }
        _ = await closed()
    }

    /// Waits until the connection has ended: the close handshake's details,
    /// or the error that ended it.
    public func closed() async -> Result<CloseInfo, TransportError> {
        await withCheckedContinuation { continuation in
            let ready = session.termination.withLock { state -> Result<CloseInfo, TransportError>? in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Opens client WebSocket connections (`ws://` and `wss://`).
///
/// ```swift
/// let info = try await WebSocketClient.connect(to: "ws://127.0.0.1:8080/feed") { inbound, connection in
///     try await connection.send("{\"filter\":null}")
///     for try await batch in inbound {
///         for index in batch.indices { print(batch.text(at: index)) }
///     }
/// }
/// ```
public enum WebSocketClient {
    /// Opens a connection and returns it once the upgrade has succeeded.
    /// Cancelling the calling task abandons the attempt with ``TransportError/cancelled``.
    ///
    /// Throws the typed connect failures: ``TransportError/invalidURL(_:reason:)``,
    /// ``TransportError/dnsFailure(host:reason:)``, ``TransportError/connectionRefused(host:port:)``,
    /// ``TransportError/tlsFailure(host:detail:)``, ``TransportError/handshakeRejected(status:)``,
    /// ``TransportError/timedOut(operation:seconds:)``.
    public static func connect(
        to urlString: String,
        configuration: WebSocketConfiguration = .init(),
        eventLoop: TransportEventLoop = .shared
    ) async throws(TransportError) -> WebSocketConnection {
        let url = try TransportURL(urlString)
        guard url.isWebSocket else { throw .invalidURL(urlString, reason: "expected a ws:// or wss:// URL") }
        let address = try await AddressResolver.resolve(url.host)
        let (loop, dispatcher) = try await eventLoop.running()
        let session = ClientWebSocketSession(
            id: eventLoop.makeSessionID(), url: url, address: address, configuration: configuration,
            loop: loop, dispatcher: dispatcher)
        let timeout = configuration.connectTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            loop.execute { session.connectTimedOut() }
        }
        defer { timer.cancel() }
        let opened: Result<Void, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let accepted = loop.execute {
                    guard let context = loop.context else {
                        continuation.resume(returning: .failure(.shutDown))
                        return
                    }
                    session.start(context: context, continuation: continuation)
                }
                if !accepted { continuation.resume(returning: .failure(.shutDown)) }
            }
        } onCancel: {
            loop.execute { session.abandonConnect(with: .cancelled) }
        }
        try opened.get()
        return WebSocketConnection(session: session)
    }

    /// Opens a connection, runs `body` with its inbound messages and the
    /// connection, then closes it (code 1000) and returns how it ended, like
    /// `swift-websocket`'s client: the connection lives exactly as long as `body`.
    @discardableResult
    public static func connect(
        to urlString: String,
        configuration: WebSocketConfiguration = .init(),
        eventLoop: TransportEventLoop = .shared,
        _ body: (WebSocketInbound, WebSocketConnection) async throws -> Void
    ) async throws -> Result<CloseInfo, TransportError> {
        let connection = try await connect(to: urlString, configuration: configuration, eventLoop: eventLoop)
        do {
            try await body(connection.inbound, connection)
        } catch {
            await connection.close(code: 1011, reason: "client error")
            throw error
        }
        await connection.close()
        return await connection.closed()
    }
}
