import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures

/// Why a ``FeatureLayerClient`` request failed, in words a user can act on.
///
/// No case ever carries a token: URLs are redacted and messages scrubbed
/// before they are stored. ``description`` is the one-line text a command
/// line prints; ``isReachabilityFailure`` tells whether the service itself
/// is unusable (unreachable, not ArcGIS, broken answers, refused token, not
/// a layer) or merely refused this request (an ArcGIS error such as a bad
/// parameter), or the calling task was cancelled.
public enum FeatureLayerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with ArcGIS error JSON (`operation`: "query", "layer description request", …).
    case arcGIS(ArcGISError, operation: String)
    /// The URL is not a feature layer or table (a service root, a stream service, …).
    case notALayer(url: String, detail: String)
    /// The layer's description has malformed `fields`.
    case malformedFields(url: String, FeatureFormatError)
    /// The layer URL cannot be used.
    case invalidURL(ArcGISEndpointError)
    /// The request got no usable answer (unreachable, not ArcGIS, truncated,
    /// refused token, a page breaking the paging protocol, …) or was cancelled
    /// (``ArcGISRequestError/cancelled``).
    case request(ArcGISRequestError)

    public var description: String {
        switch self {
        case .arcGIS(let error, let operation):
            return "the \(operation) failed: \(error)"
        case .notALayer(let url, let detail):
            return "\(url) is not a feature layer: \(detail)"
        case .malformedFields(let url, let error):
            return "\(url) is not a feature layer: \(error.description)"
        case .invalidURL(let error):
            return "invalid layer URL: \(error.reason)"
        case .request(let error):
            return error.description
        }
    }

    /// True when the service cannot be used at all (its status becomes `failed`).
    public var isReachabilityFailure: Bool {
        switch self {
        case .arcGIS, .invalidURL: return false
        case .notALayer, .malformedFields: return true
        case .request(let error): return error.isReachabilityFailure
        }
    }
}
