import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// Why an ArcGIS REST request got no usable answer, whatever the service:
/// the failures every client (``FeatureLayerClient``, ``GeoprocessingClient``)
/// meets before its own reading of the answer starts, and the ways an answer
/// can be broken. The clients' errors wrap it (``FeatureLayerError/request(_:)``,
/// ``GeoprocessingError/request(_:)``).
///
/// No case ever carries a token: URLs are redacted and transport messages
/// scrubbed of the token sent before they are stored. ``description`` is the
/// one-line text a command line prints; every case but ``cancelled`` means
/// the service cannot be used (``isReachabilityFailure``). A value; `Sendable`.
public enum ArcGISRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 498/499: the token is missing, invalid or expired, and no other was
    /// available (`renewed`: a renewed token was refused too).
    case tokenRejected(ArcGISError, renewed: Bool)
    /// The answer is not ArcGIS REST JSON (an HTML page, a proxy's text, …).
    case notArcGIS(url: String, status: Int, contentType: String?, excerpt: String)
    /// The answer stopped early: `received` bytes (of `expected`, when the server said).
    case truncated(url: String, received: Int, expected: Int?)
    /// No answer: refused, DNS, TLS, timeout, a body over the size limit — the transport's message.
    case unreachable(url: String, detail: String)
    /// An HTTP error status without ArcGIS error JSON.
    case httpStatus(url: String, status: Int, excerpt: String)
    /// The answer is JSON of an unexpected shape, or breaks the protocol (what was wrong).
    case invalidResponse(url: String, detail: String)
    /// The calling task was cancelled: the request was not sent, or was aborted.
    case cancelled

    public var description: String {
        switch self {
        case .tokenRejected(let error, let renewed):
            let hint = renewed ? "the renewed token was refused too"
                : error.code == 499 ? "the service requires a token: give one with --token" : "the token is invalid or expired and no new one is available"
            return "\(error): \(hint)"
        case .notArcGIS(let url, let status, let contentType, let excerpt):
            return "not an ArcGIS REST endpoint (\(url) answered HTTP \(status)\(contentType.map { " \($0)" } ?? ""): \(excerpt))"
        case .truncated(let url, let received, let expected):
            return "the response from \(url) was truncated after \(received) bytes" + (expected.map { " of \($0)" } ?? "")
        case .unreachable(let url, let detail):
            return "cannot reach \(url): \(detail)"
        case .httpStatus(let url, let status, let excerpt):
            return "\(url) answered HTTP \(status): \(excerpt)"
        case .invalidResponse(let url, let detail):
            return "unexpected answer from \(url): \(detail)"
        case .cancelled:
            return "cancelled"
        }
    }

    /// True when the service cannot be used at all (a client's status becomes `failed`): every case but ``cancelled``.
    public var isReachabilityFailure: Bool {
        self != .cancelled
    }
}
