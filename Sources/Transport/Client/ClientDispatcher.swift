import CLibWebSockets

/// One client connection (WebSocket or HTTP request) as the service thread
/// sees it. All methods run on the service thread.
protocol ClientSession: AnyObject {
    var id: Int { get }
    /// Opens the connection (called once, on the service thread).
    func connect(context: OpaquePointer)
    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32
    /// Hands off what this turn received (only called after ``ClientDispatcher/markDirty(_:)``).
    func turnEnded()
    /// Starts a polite close because the loop shuts down.
    func beginShutdown()
    /// The context is going away: finish with ``TransportError/shutDown`` if not finished.
    func contextDestroyed()
}

/// Routes a client context's callbacks to its sessions.
///
/// Each client wsi carries its session's integer id as the libwebsockets
/// user pointer (never a Swift object pointer), so a late callback for a
/// finished session finds nothing instead of freed memory. Service thread only.
final class ClientDispatcher: ServiceLoopDelegate, @unchecked Sendable {
    private var sessions: [Int: any ClientSession] = [:]
    private var dirty: [any ClientSession] = []

    func register(_ session: any ClientSession) { sessions[session.id] = session }
    func unregister(_ session: any ClientSession) { sessions[session.id] = nil }
    func markDirty(_ session: any ClientSession) { dirty.append(session) }
    func sessionByID(_ id: Int) -> (any ClientSession)? { sessions[id] }

    func callback(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                  input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let user, let session = sessions[Int(bitPattern: user)] else {
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return session.handle(wsi: wsi, reason: reason, input: input, length: length)
    }

    func serviceTurnEnded() {
        guard !dirty.isEmpty else { return }
        let sessions = dirty
        dirty = []
        for session in sessions { session.turnEnded() }
    }

    func beginShutdown() {
        for session in Array(sessions.values) { session.beginShutdown() }
    }

    var hasLiveConnections: Bool { !sessions.isEmpty }

    func contextWillBeDestroyed() {
        serviceTurnEnded()
        for session in Array(sessions.values) { session.contextDestroyed() }
    }
}

/// Turns libwebsockets' client connection-error text into a typed error.
enum ConnectErrorClassifier {
    static func classify(_ text: String, url: TransportURL, handshakeStatus: Int) -> TransportError {
        if handshakeStatus != 0 && handshakeStatus != 101 && handshakeStatus != 200 {
            return .handshakeRejected(status: handshakeStatus)
        }
        if text.contains("unauthorized") { return .handshakeRejected(status: 401) }
        if text == "Unable to connect" || text.contains("connect failed") || text.contains("Closed before conn") && handshakeStatus == 0 && !url.usesTLS {
            return .connectionRefused(host: url.host, port: url.port)
        }
        if text.contains("getaddrinfo") { return .dnsFailure(host: url.host, reason: text) }
        let lowered = text.lowercased()
        if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("cert") || lowered.contains("x509") {
            return .tlsFailure(host: url.host, detail: text)
        }
        return .connectionFailed(detail: text.isEmpty ? "no detail from libwebsockets" : text)
    }
}
