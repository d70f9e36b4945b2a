import CLibWebSockets

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
    /// Resolving the host name counts within ``WebSocketConfiguration/connectTimeout``,
    /// like TCP, TLS and the upgrade. Cancelling the calling task abandons the
    /// attempt (a pending name lookup included) with ``TransportError/cancelled``.
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
        let timeout = configuration.connectTimeout
        return try await Deadline.run(
            within: timeout,
            timedOut: .timedOut(operation: "opening \(url)", seconds: seconds(timeout)),
            discard: { late in await late.close(code: 1001, reason: "connect timed out") }
        ) { () throws(TransportError) in
            let address = try await AddressResolver.resolve(url.host)
            return try await open(url: url, address: address, configuration: configuration, eventLoop: eventLoop)
        }
    }

    private static func open(url: TransportURL, address: String, configuration: WebSocketConfiguration,
                             eventLoop: TransportEventLoop) async throws(TransportError) -> WebSocketConnection {
        let (loop, dispatcher) = try await eventLoop.running()
        let (session, opened) = await ClientConnectAttempts.run(makeSession: {
            ClientWebSocketSession(id: eventLoop.makeSessionID(), url: url, address: address, configuration: configuration,
                                   loop: loop, dispatcher: dispatcher)
        }) { session in await open(session, loop: loop) }
        try opened.get()
        return WebSocketConnection(session: session)
    }

    private static func open(_ session: ClientWebSocketSession, loop: ServiceLoop) async -> Result<Void, TransportError> {
        await withTaskCancellationHandler {
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

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
