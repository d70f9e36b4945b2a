/// Everything that can go wrong below the stream protocol, as one typed error.
///
/// Each case names what failed in words a user can act on; ``description``
/// is the one-line text the command line prints. Connection-time failures
/// (DNS, refused, TLS, handshake) are distinct cases so callers can decide
/// whether a retry makes sense.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL could not be parsed or has an unsupported scheme.
    case invalidURL(String, reason: String)
    /// The host name did not resolve.
    case dnsFailure(host: String, reason: String)
    /// Nothing accepted a TCP connection at the address.
    case connectionRefused(host: String, port: Int)
    /// The TLS handshake failed before any certificate was judged (the peer
    /// does not speak TLS, a protocol error).
    case tlsFailure(host: String, detail: String)
    /// The server's certificate was refused, for `reason` (typed, so callers
    /// decide on the case: an untrusted certificate is final, and the
    /// command line can say `--insecure`), in OpenSSL's words in `detail`.
    case certificateRejected(host: String, reason: CertificateRejection, detail: String)
    /// The server answered the WebSocket upgrade with an HTTP status other than 101.
    case handshakeRejected(status: Int)
    /// Any other failure while connecting, with libwebsockets' own words.
    case connectionFailed(detail: String)
    /// The operation did not finish in time.
    case timedOut(operation: String, seconds: Double)
    /// A WebSocket message grew beyond the configured maximum size.
    case messageTooLarge(limit: Int)
    /// An HTTP response body grew beyond the configured maximum size.
    case bodyTooLarge(limit: Int)
    /// An HTTP request was redirected more often than allowed.
    case tooManyRedirects(limit: Int)
    /// An `https` request was redirected to plain `http`, which was refused
    /// (see ``HTTPClientConfiguration/allowsRedirectToPlaintext``).
    case insecureRedirect(from: String, to: String)
    /// Pings went unanswered for the configured hang-up time.
    case peerUnresponsive(seconds: Int)
    /// The connection ended without a WebSocket close handshake.
    case connectionLost(detail: String)
    /// A send or close was attempted on a connection that is already closed.
    case notConnected
    /// The event loop that owned the connection was shut down.
    case shutDown
    /// A server could not start listening.
    case serverStartFailed(detail: String)
    /// An address given to listen on (`--host`) that this machine cannot
    /// listen on, found before any server starts: `detail` says why.
    case unusableListenAddress(detail: String)
    /// The waiting task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "invalid URL '\(url)': \(reason)"
        case .dnsFailure(let host, let reason): return "cannot resolve host '\(host)': \(reason)"
        case .connectionRefused(let host, let port): return "connection refused by \(host):\(port) (nothing listening or unreachable)"
        case .tlsFailure(let host, let detail): return "TLS handshake with \(host) failed: \(detail)"
        case .certificateRejected(let host, _, let detail): return "TLS handshake with \(host) failed: \(detail)"
        case .handshakeRejected(let status): return "WebSocket upgrade rejected with HTTP \(status)"
        case .connectionFailed(let detail): return "connection failed: \(detail)"
        case .timedOut(let operation, let seconds): return "\(operation) timed out after \(formatSeconds(seconds)) s"
        case .messageTooLarge(let limit): return "WebSocket message exceeds the maximum size of \(limit) bytes"
        case .bodyTooLarge(let limit): return "HTTP response body exceeds the maximum size of \(limit) bytes"
        case .tooManyRedirects(let limit): return "more than \(limit) HTTP redirects"
        case .insecureRedirect(let from, let to):
            return "refused to follow a redirect from \(from) to plain-text \(to): the request and its token would travel unencrypted"
        case .peerUnresponsive(let seconds): return "peer did not answer pings for \(seconds) s; connection dropped"
        case .connectionLost(let detail): return "connection lost without a close handshake (\(detail))"
        case .notConnected: return "the connection is closed"
        case .shutDown: return "the transport event loop was shut down"
        case .serverStartFailed(let detail): return "server could not start: \(detail)"
        case .unusableListenAddress(let detail): return detail
        case .cancelled: return "cancelled"
        }
    }
}

private func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}

/// Why a server's certificate was refused.
public enum CertificateRejection: Sendable, Hashable {
    /// Self-signed, or issued by an authority this machine does not trust.
    case untrusted
    /// Valid, but for another host name (or address).
    case hostNameMismatch
    /// Expired or not yet valid.
    case outsideValidity
    /// Anything else the TLS library refused.
    case other
}
