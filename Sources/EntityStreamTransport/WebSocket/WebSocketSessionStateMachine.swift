/// The lifecycle of one WebSocket connection, client or server side, as a
/// value: opening, open, closing, closed — and, once closed, how it ended.
///
/// The shells (``ClientWebSocketSession``, ``ServerWebSocketSession``) report
/// what libwebsockets tells them and carry out the returned actions. How a
/// connection ended is decided from what the machine saw, in this order: a
/// failure it decided itself (message too large, peer unresponsive, aborted,
/// abandoned connect), then the peer's close frame, then our own close
/// frame, then a shutdown of the loop, and otherwise a lost connection.
///
/// Keepalive (client side) is decided here too, so that "peer unresponsive"
/// is a decision the machine made rather than a guess after the fact: with a
/// ``Keepalive``, ``tick(now:)`` asks for a ping once nothing was heard for
/// the ping interval, and hangs up when still nothing was heard after the
/// hang-up time. Anything received counts as heard. Pure; time is injected.
struct WebSocketSessionStateMachine<Instant: InstantProtocol> where Instant.Duration == Duration {
    enum Role: Sendable { case client, server }

    enum Phase: Equatable {
        /// Client only: TCP, TLS and the upgrade are in progress.
        case connecting
        case open
        /// A close frame was queued or sent, or the socket is being dropped.
        case closing
        case closed
    }

    /// When to ping and when to give up on a silent peer.
    struct Keepalive: Equatable {
        var pingInterval: Duration
        var hangUpAfter: Duration
    }

    /// What to do about a keepalive tick.
    enum KeepaliveAction: Equatable {
        case nothing
        /// Send a WebSocket ping.
        case sendPing
        /// Drop the connection now: the peer is unresponsive (decided).
        case hangUp
    }

    /// What to do when the loop shuts down.
    enum ShutdownAction: Equatable {
        /// Close politely with this code and reason.
        case sendClose(code: UInt16, reason: String)
        /// Drop the socket (nothing to close politely).
        case drop
        case nothing
    }

    /// What to do with a close frame the peer sent.
    enum PeerCloseAction: Equatable {
        /// Echo its code (libwebsockets does).
        case echo
        /// Its code is not allowed on the wire (RFC 6455 §7.4): answer 1002 instead.
        case answerProtocolError
    }

    let role: Role
    let keepalive: Keepalive?
    private(set) var phase: Phase
    private var peerClose: CloseInfo?
    private var localClose: CloseInfo?
    private var failure: TransportError?
    private var shuttingDown = false
    private var lastHeard: Instant
    private var pingSentAt: Instant?
    /// How the connection ended, once it has.
    private(set) var result: Result<CloseInfo, TransportError>?

    init(role: Role, keepalive: Keepalive? = nil, now: Instant) {
        self.role = role
        self.keepalive = keepalive
        self.phase = role == .client ? .connecting : .open
        self.lastHeard = now
    }

    var isFinished: Bool { result != nil }

    // MARK: Opening

    /// The upgrade succeeded. Returns true when the opener must be told (once).
    mutating func established(now: Instant) -> Bool {
        guard phase == .connecting else { return false }
        phase = .open
        lastHeard = now
        return true
    }

    /// Connecting failed; returns the ending to report (nil when already finished).
    mutating func connectFailed(_ error: TransportError) -> Result<CloseInfo, TransportError>? {
        failure = failure ?? error
        return finish()
    }

    /// Give up on a connect still in progress (timeout, cancellation). Returns
    /// the ending to report, or nil when the connection is no longer connecting.
    mutating func abandonConnect(_ error: TransportError) -> Result<CloseInfo, TransportError>? {
        guard phase == .connecting, result == nil else { return nil }
        failure = error
        return finish()
    }

    // MARK: While open

    /// Something arrived from the peer (a message, a pong): it is alive.
    mutating func heard(now: Instant) {
        lastHeard = now
        pingSentAt = nil
    }

    /// The peer sent a close frame.
    mutating func peerClosed(code: UInt16?, reason: String) -> PeerCloseAction {
        peerClose = CloseInfo(code: code, reason: reason, initiatedByPeer: true)
        if phase == .open || phase == .connecting { phase = .closing }
        guard let code else { return .echo }
        return Self.isValidOnTheWire(code) ? .echo : .answerProtocolError
    }

    /// A message outgrew the limit: the connection fails, closing with 1009.
    mutating func messageTooLarge(limit: Int) -> (code: UInt16, reason: String) {
        failure = failure ?? .messageTooLarge(limit: limit)
        return (1009, "message exceeds \(limit) bytes")
    }

    /// Our close frame was written.
    mutating func closeFrameSent(code: UInt16, reason: String) {
        localClose = CloseInfo(code: code, reason: reason, initiatedByPeer: false)
        if phase != .closed { phase = .closing }
    }

    /// The connection is dropped on purpose without a close frame (fault injection).
    mutating func aborted(detail: String) {
        failure = failure ?? .connectionLost(detail: detail)
        if phase != .closed { phase = .closing }
    }

    /// The loop is shutting down.
    mutating func shutdownBegan() -> ShutdownAction {
        shuttingDown = true
        switch phase {
        case .open:
            return .sendClose(code: 1001, reason: role == .client ? "client shutting down" : "server shutting down")
        case .connecting:
            return .drop
        case .closing, .closed:
            return .nothing
        }
    }

    /// A keepalive tick at `now`.
    mutating func tick(now: Instant) -> KeepaliveAction {
        guard let keepalive, phase == .open, result == nil else { return .nothing }
        let silence = lastHeard.duration(to: now)
        if pingSentAt != nil {
            guard silence >= keepalive.hangUpAfter else { return .nothing }
            failure = failure ?? .peerUnresponsive(seconds: Int(keepalive.hangUpAfter.components.seconds))
            phase = .closing
            return .hangUp
        }
        guard silence >= keepalive.pingInterval else { return .nothing }
        pingSentAt = now
        return .sendPing
    }

    // MARK: Ending

    /// The socket has closed: how the connection ended (nil when that was already decided).
    mutating func socketClosed() -> Result<CloseInfo, TransportError>? {
        finish()
    }

    /// The loop's context is being destroyed: anything not finished ends with `shutDown`.
    mutating func contextDestroyed() -> Result<CloseInfo, TransportError>? {
        guard result == nil else { return nil }
        failure = failure ?? .shutDown
        return finish()
    }

    private mutating func finish() -> Result<CloseInfo, TransportError>? {
        guard result == nil else { return nil }
        let ending: Result<CloseInfo, TransportError>
        if let failure { ending = .failure(failure) }
        else if let peerClose { ending = .success(peerClose) }
        else if let localClose { ending = .success(localClose) }
        else if shuttingDown { ending = .failure(.shutDown) }
        else if phase == .connecting { ending = .failure(.connectionFailed(detail: "closed before the WebSocket upgrade completed")) }
        else { ending = .failure(.connectionLost(detail: role == .client ? "the socket closed" : "the client went away")) }
        phase = .closed
        result = ending
        return ending
    }

    /// Close codes a peer may send (RFC 6455 §7.4.1–7.4.2): 1000–1003,
    /// 1007–1011 (and 1012–1014, registered since), 3000–4999.
    static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
