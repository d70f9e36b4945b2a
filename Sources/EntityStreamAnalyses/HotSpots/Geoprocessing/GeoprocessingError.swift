import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures
import EntityStream
import EntityStreamHotSpots

/// Why a ``GeoprocessingClient`` request failed, in words a user can act on.
///
/// No case ever carries a token: URLs are redacted and messages scrubbed
/// before they are stored. ``description`` is the one-line text a command
/// line prints; ``isReachabilityFailure`` tells whether the service itself
/// is unusable (its status becomes `failed`) or merely refused a request,
/// or the calling task was cancelled.
public enum GeoprocessingError: GPClientError {
    /// The server answered with ArcGIS error JSON (`operation`: "submitJob", "job status", …).
    case arcGIS(ArcGISError, operation: String)
    /// The task URL cannot be used.
    case invalidURL(ArcGISEndpointError)
    /// The URL (redacted) is not a geoprocessing task (no `/GPServer/`).
    case notAGeoprocessingTask(redactedURL: String)
    /// The request got no usable answer (unreachable, not ArcGIS, truncated,
    /// refused token, unexpected JSON, …) or was cancelled (``ArcGISRequestError/cancelled``).
    case request(ArcGISRequestError)

    public var description: String {
        switch self {
        case .arcGIS(let error, let operation):
            return "the \(operation) request failed: \(error)"
        case .invalidURL(let error):
            return "invalid geoprocessing task URL: \(error.reason)"
        case .notAGeoprocessingTask(let url):
            return "invalid geoprocessing task URL: '\(url)' is not a geoprocessing task (…/GPServer/<task>)"
        case .request(let error):
            return error.description
        }
    }

    /// True when the service cannot be used at all.
    public var isReachabilityFailure: Bool {
        switch self {
        case .arcGIS, .invalidURL, .notAGeoprocessingTask: return false
        case .request(let error): return error.isReachabilityFailure
        }
    }
}
