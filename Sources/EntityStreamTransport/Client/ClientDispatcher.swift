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
    /// A keepalive tick (about once a second).
    func tick(now: ContinuousClock.Instant)
    /// OpenSSL judged the server's certificate during the handshake:
    /// `problem` when it refused it, nil when it accepted it.
    func certificateVerified(_ problem: TLSCertificateProblem?)
    /// Read once the caller has its answer: the connect failed in a way
    /// libwebsockets' context-creation race explains (``TLSContextEpoch``).
    var lostToContextCreation: Bool { get }
}

extension ClientSession {
    func tick(now: ContinuousClock.Instant) {}
    func certificateVerified(_ problem: TLSCertificateProblem?) {}
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
        if reason == LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION {
            // `user` is OpenSSL's X509_STORE_CTX here and `length` its preverify verdict;
            // the session is found through the wsi's own user pointer. Returning 0 keeps
            // libwebsockets' decision (it refuses what OpenSSL refused).
            if let raw = lws_wsi_user(wsi), let session = sessions[Int(bitPattern: raw)] {
                let code = length == 0 ? es_x509_verify_error(user) : 0
                session.certificateVerified(code != 0 ? TLSCertificateProblem(verifyError: code) : nil)
            }
            return 0
        }
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

    func tick(now: ContinuousClock.Instant) {
        for session in Array(sessions.values) { session.tick(now: now) }
    }

    func contextWillBeDestroyed() {
        serviceTurnEnded()
        for session in Array(sessions.values) { session.contextDestroyed() }
    }
}

/// Turns libwebsockets' client connection-error text (and, for TLS, the
/// certificate verdict seen during the handshake) into a typed error.
enum ConnectErrorClassifier {
    static func classify(_ text: String, url: TransportURL, handshakeStatus: Int,
                         certificateProblem: TLSCertificateProblem? = nil) -> TransportError {
        if handshakeStatus != 0 && handshakeStatus != 101 && handshakeStatus != 200 {
            return .handshakeRejected(status: handshakeStatus)
        }
        if text.contains("unauthorized") { return .handshakeRejected(status: 401) }
        if let certificateProblem {
            return .certificateRejected(host: url.host, reason: certificateProblem.rejection, detail: certificateProblem.detail(host: url.host))
        }
        if text == "Unable to connect" || text.contains("connect failed") || text.contains("Closed before conn") && handshakeStatus == 0 && !url.usesTLS {
            return .connectionRefused(host: url.host, port: url.port)
        }
        if text.contains("getaddrinfo") { return .dnsFailure(host: url.host, reason: text) }
        let lowered = text.lowercased()
        if url.usesTLS && (lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("closed before conn")) {
            // The handshake failed before any certificate was judged: the peer
            // did not answer as a TLS server.
            return .tlsFailure(host: url.host, detail: "the server did not complete a TLS handshake; it does not seem to speak TLS on port \(url.port) (is it http:// or ws://?)")
        }
        if lowered.contains("cert") || lowered.contains("x509") {
            return .tlsFailure(host: url.host, detail: text)
        }
        return .connectionFailed(detail: text.isEmpty ? "no detail from libwebsockets" : text)
    }
}
