import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// How a ``StreamServiceConnection`` connects, filters and retries.
public struct StreamConnectionOptions: Sendable {
    /// Token for the REST request and (unless the description gives its own) the socket.
    public var token: String?
    /// Where the REST token comes from, when not the fixed ``token`` (e.g. a
    /// source shared with feature-layer clients that can renew it).
    public var tokenSource: (any TokenSource)?
    /// The filter sent at connect (where, envelope, outFields, outSR).
    public var filter = StreamFilter()
    /// Track-id field to use when the service names none (or to override it).
    public var trackIDField: String?
    public var reconnectPolicy = ReconnectPolicy()
    /// Seeds the jitter of the waits between reconnection attempts (random
    /// by default, so clients dropped together come back at different times).
    public var reconnectSeed = UInt64.random(in: .min ... .max)
    /// Send the token over a plain `ws://` stream URL even when the service
    /// description came over https (off: the connection fails, saying so).
    /// Redirects from https to http are governed by
    /// ``HTTPClientConfiguration/allowsRedirectToPlaintext`` in ``http``.
    public var allowsPlaintextToken = false
    /// How long to wait for the server's answer to a filter change.
    public var filterReplyTimeoutMilliseconds: Int64 = 10_000
    /// How long ``StreamServiceConnection/disconnect()`` waits for the server
    /// to answer its close frame before dropping the connection (and saying so).
    public var closeTimeoutMilliseconds: Int64 = 1_000
    public var webSocket = WebSocketConfiguration()
    public var http = HTTPClientConfiguration()
    public var eventLoop: TransportEventLoop = .shared
    public var clock: any EntityClock = SystemClock()
    /// Appended to a TLS failure on a loopback host whose certificate is not
    /// trusted (e.g. "for the local simulator's self-signed certificate, use
    /// --insecure"); nil: no hint. The command line sets it.
    public var selfSignedCertificateHint: String?

    public init() {}
}
