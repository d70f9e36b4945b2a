/// How a WebSocket client connection behaves.
///
/// Defaults suit a stream service: 16 MiB maximum message, pings every 30 s
/// and a hang-up when none is answered for 60 s, TLS certificates verified.
public struct WebSocketConfiguration: Sendable {
    /// Extra request headers for the upgrade request.
    public var headers: HTTPHeaders = [:]
    /// Accept a self-signed certificate and skip the host-name check. For a
    /// local simulator only; off by default.
    public var allowSelfSignedCertificates = false
    /// A message larger than this ends the connection with
    /// ``TransportError/messageTooLarge(limit:)`` and close code 1009.
    public var maximumMessageSize = 16 * 1024 * 1024
    /// Unconsumed bytes after which reading pauses (back-pressure); what a
    /// consumer takes at once is about this size too. 512 KiB: against
    /// `stream-simulator --burst`, 1 MiB peaked 3 MB higher (the waiting
    /// bytes grow by doubling) at the same speed; 256 KiB cost 2 % of speed.
    public var receiveBufferLimit = 512 * 1024
    /// Seconds of silence after which a WebSocket ping is sent (0 = never).
    public var pingIntervalSeconds: UInt16 = 30
    /// Seconds without a pong after which the peer counts as dead and the
    /// connection is dropped with ``TransportError/peerUnresponsive(seconds:)``.
    /// Must exceed ``pingIntervalSeconds``.
    public var hangUpAfterSeconds: UInt16 = 60
    /// How long opening (TCP, TLS and upgrade) may take.
    public var connectTimeout: Duration = .seconds(20)

    public init() {}
}
