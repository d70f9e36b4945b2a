import CLibWebSockets

/// An HTTP and WebSocket server on one port, over libwebsockets.
///
/// ``start(_:)`` listens (port 0 picks a free one: read ``port``), on
/// loopback unless configured otherwise, with TLS when certificate files are
/// given. HTTP requests go to the configuration's responder; WebSocket
/// upgrades to its upgrade responder, and accepted clients to their handler
/// tasks. ``shutdown()`` closes clients politely (1001), stops the service
/// thread and destroys the context on it, then cancels the handler tasks
/// still running and waits for them: handlers should return once their
/// socket is closed or their task is cancelled. Thread-safe.
public final class TransportServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The address it listens on (exactly that one, or every interface).
    public let listenAddress: ListenAddress
    /// `ws` or `wss`, `http` or `https` according to the TLS setting.
    public let usesTLS: Bool
    private let loop: ServiceLoop
    private let handlers: HandlerTasks
    private let dispatcher: ServerDispatcher

    private init(port: Int, listenAddress: ListenAddress, usesTLS: Bool, loop: ServiceLoop, handlers: HandlerTasks, dispatcher: ServerDispatcher) {
        self.port = port
        self.listenAddress = listenAddress
        self.usesTLS = usesTLS
        self.loop = loop
        self.handlers = handlers
        self.dispatcher = dispatcher
    }

    /// Starts listening on exactly the configured address (see
    /// ``ListenAddress``). Throws ``TransportError/serverStartFailed(detail:)``
    /// when the address is not one of this machine's, the port is taken, or
    /// the TLS files cannot be loaded, or the send buffer asked for (see
    /// ``SocketSendBuffer``) is not a size it accepts.
    public static func start(_ configuration: ServerConfiguration) async throws(TransportError) -> TransportServer {
        var resolved = configuration
        resolved.sendBufferBytes = try SocketSendBuffer.resolve(configuration.sendBufferBytes)
        let configuration = resolved
        let listenAddress = try configuration.host.map { text throws(TransportError) in try ListenAddress(parsing: text) } ?? .everyInterface
        try listenAddress.checkUsable()
        if let tls = configuration.tls {
            for path in [tls.certificatePath, tls.privateKeyPath] where access(path, R_OK) != 0 {
                throw .serverStartFailed(detail: "cannot read TLS file '\(path)'")
            }
        }
        let handlers = HandlerTasks()
        let dispatcher = ServerDispatcher(configuration: configuration, handlers: handlers)
        let loop = try await ServiceLoop.start(
            name: "entitystream-server", delegate: dispatcher, rxBufferSize: 64 * 1024,
            txPacketSize: 256 * 1024, perSessionDataSize: 0, permessageDeflate: false
        ) { info, keep in
            info.port = Int32(configuration.port)
            // libwebsockets 4.1 binds an IPv6 socket and, given an IPv4 address as
            // `iface`, writes it where an IPv6 socket ignores it (so it listened on
            // every interface): an IPv4 address gets an IPv4-only context.
            info.iface = listenAddress.address.map { keep($0) }
            info.fd_limit_per_thread = 4096
            info.timeout_secs = UInt32(clamping: configuration.networkTimeoutSeconds)
            info.timeout_secs_ah_idle = UInt32(clamping: min(10, configuration.networkTimeoutSeconds))
            info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
            if listenAddress.family == .ipv4 { info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
            if let tls = configuration.tls {
                info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                info.ssl_cert_filepath = keep(tls.certificatePath)
                info.ssl_private_key_filepath = keep(tls.privateKeyPath)
                // HTTP/1.1 only: libwebsockets 4.1 keeps the headers it does not know (X-Esri-Authorization,
                // the ArcGIS token header) for HTTP/1 requests only, so a client that negotiated h2 (curl,
                // GDAL) had its token ignored and got 499. ArcGIS clients all speak HTTP/1.1.
                info.alpn = keep("http/1.1")
            }
        }
        dispatcher.loop = loop
        let port: Int = await withCheckedContinuation { continuation in
            let accepted = loop.execute {
                guard let context = loop.context, let vhost = lws_get_vhost_by_name(context, "default") else {
                    return continuation.resume(returning: configuration.port)
                }
                continuation.resume(returning: Int(lws_get_vhost_listen_port(vhost)))
            }
            if !accepted { continuation.resume(returning: configuration.port) }
        }
        guard port > 0 else {
            await loop.shutdown()
            throw .serverStartFailed(detail: "could not listen on port \(configuration.port)")
        }
        return TransportServer(port: port, listenAddress: listenAddress, usesTLS: configuration.tls != nil, loop: loop, handlers: handlers,
                               dispatcher: dispatcher)
    }

    /// `ws://host:port` or `wss://host:port` reaching this server (its
    /// address; loopback when it listens everywhere; IPv6 in brackets).
    public var webSocketBase: String { "\(usesTLS ? "wss" : "ws")://\(listenAddress.urlHost):\(port)" }
    /// `http://host:port` or `https://host:port` reaching this server.
    public var httpBase: String { "\(usesTLS ? "https" : "http")://\(listenAddress.urlHost):\(port)" }

    /// Closes every client politely, stops, and returns once no handler task
    /// is running (those still running are cancelled). Idempotent.
    public func shutdown() async {
        await loop.shutdown()
        await handlers.cancelAndWait()
    }

    /// Returns after the service thread's next turn, which starts at once: by
    /// then every client whose socket could take data has been written to
    /// (one chunk each). A producer that queued a burst for many clients
    /// waits for this to let the fast ones drain, whatever a slow one does
    /// (its socket, being full, is simply skipped). Returns at once when the
    /// server has stopped.
    public func nextServiceTurn() async {
        let dispatcher = self.dispatcher
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = loop.execute { [weak dispatcher] in
                guard let dispatcher else { return continuation.resume() }
                if dispatcher.loop?.context == nil { return continuation.resume() }
                dispatcher.resumeAfterNextTurn(continuation)
            }
            if !accepted { continuation.resume() }
        }
    }

    /// Handler tasks (HTTP responders, WebSocket handlers) still running.
    public var runningHandlerCount: Int { handlers.count }
}
