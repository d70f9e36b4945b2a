import EntityStreamCore

/// Why a ``FeatureLayerClient`` request failed, in words a user can act on.
///
/// No case ever carries a token: URLs are redacted and messages scrubbed
/// before they are stored. ``description`` is the one-line text a command
/// line prints; ``isReachabilityFailure`` tells whether the service itself
/// is unusable (unreachable, not ArcGIS, broken answers, refused token) or
/// merely refused this request (an ArcGIS error such as a bad parameter).
public enum FeatureLayerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with ArcGIS error JSON (`operation`: "query", "layer description", …).
    case arcGIS(ArcGISError, operation: String)
    /// 498/499: the token is missing, invalid or expired, and no other was available.
    case tokenRejected(ArcGISError, renewed: Bool)
    /// The answer is not ArcGIS REST JSON (an HTML page, a proxy's text, …).
    case notArcGIS(url: String, status: Int, contentType: String?, excerpt: String)
    /// The answer stopped early: `received` bytes (of `expected`, when the server said).
    case truncated(url: String, received: Int, expected: Int?)
    /// No answer: refused, DNS, TLS, timeout — the transport's message.
    case unreachable(url: String, detail: String)
    /// An HTTP error status without ArcGIS error JSON.
    case httpStatus(url: String, status: Int, excerpt: String)
    /// The URL is not a feature layer or table (a service root, a stream service, …).
    case notALayer(url: String, detail: String)
    /// The answer is JSON of an unexpected shape, or breaks the paging protocol.
    case invalidResponse(url: String, detail: String)
    /// The layer URL cannot be used.
    case invalidURL(String)
    /// The calling task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .arcGIS(let error, let operation):
            return "the \(operation) failed: \(error)"
        case .tokenRejected(let error, let renewed):
            let hint: String
            if error.code == 499 {
                hint = renewed ? "the renewed token was refused too" : "the layer requires a token: give one with --token"
            } else {
                hint = renewed ? "the renewed token was refused too" : "the token is invalid or expired and no new one is available"
            }
            return "\(error): \(hint)"
        case .notArcGIS(let url, let status, let contentType, let excerpt):
            return "not an ArcGIS REST endpoint (\(url) answered HTTP \(status)\(contentType.map { " \($0)" } ?? ""): \(excerpt))"
        case .truncated(let url, let received, let expected):
            return "the response from \(url) was truncated after \(received) bytes" + (expected.map { " of \($0)" } ?? "")
        case .unreachable(let url, let detail):
            return "cannot reach \(url): \(detail)"
        case .httpStatus(let url, let status, let excerpt):
            return "\(url) answered HTTP \(status): \(excerpt)"
        case .notALayer(let url, let detail):
            return "\(url) is not a feature layer: \(detail)"
        case .invalidResponse(let url, let detail):
            return "unexpected answer from \(url): \(detail)"
        case .invalidURL(let detail):
            return "invalid layer URL: \(detail)"
        case .cancelled:
            return "cancelled"
        }
    }

    /// True when the service cannot be used at all (its status becomes `failed`).
    public var isReachabilityFailure: Bool {
        switch self {
        case .arcGIS, .cancelled, .invalidURL: return false
        default: return true
        }
    }
}
