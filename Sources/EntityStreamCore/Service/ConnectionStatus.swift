/// The four connection states of the Maps SDK's `ConnectionStatus`.
public enum ConnectionStatus: String, Sendable, Hashable {
    /// Initial, and after `disconnect()`.
    case disconnected
    /// Opening (or re-opening) the connection.
    case connecting
    /// The WebSocket handshake succeeded.
    case connected
    /// Reconnection gave up, or a final close code arrived.
    case failed
}

/// One change of a connection's status, as published on the bus.
public struct ConnectionStatusChange: Sendable, Hashable {
    public var status: ConnectionStatus
    /// The reconnection attempt (0 for the first connection after `connect()`).
    public var attempt: Int
    /// The URL in use, with any token redacted.
    public var url: String?
    /// What went wrong, when this change is due to an error.
    public var error: String?
    /// When it happened, epoch ms.
    public var time: Int64
    /// Which connection this is about when it is not the stream's own: an
    /// analysis's remote service (e.g. `layer https://…/MapServer/0`).
    public var source: String?

    public init(status: ConnectionStatus, attempt: Int, url: String?, error: String?, time: Int64, source: String? = nil) {
        self.status = status
        self.attempt = attempt
        self.url = url
        self.error = error
        self.time = time
        self.source = source
    }
}
