import EntityStreamModel

/// Why a service description could not be used.
public enum ServiceDescriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The answer was not JSON (an HTML login page, a proxy error, …).
    case notJSON(detail: String, excerpt: String)
    /// ArcGIS answered with its error object (e.g. 498 invalid token, 499 token required).
    case arcGISError(ArcGISError)
    /// The description has no usable `streamUrls`.
    case missingStreamURLs
    /// Neither the service nor the user named a track-id field.
    case noTrackIDField(available: [String])
    /// The named track-id field is not among the service's fields.
    case unknownTrackIDField(name: String, available: [String])
    /// The request for the description failed with this HTTP status.
    case httpStatus(Int, excerpt: String)
    /// Something else in the description is malformed.
    case invalid(String)

    public var description: String {
        switch self {
        case .notJSON(let detail, let excerpt):
            return "the service description is not JSON (\(detail)); the server said: \(excerpt)"
        case .arcGISError(let error):
            return "the service answered with \(error.description)"
        case .missingStreamURLs:
            return "the service description has no WebSocket ('ws') entry with URLs in 'streamUrls'; is this a StreamServer URL?"
        case .noTrackIDField(let available):
            return "the service has no timeInfo.trackIdField; name one with --track-field (fields: \(available.joined(separator: ", ")))"
        case .unknownTrackIDField(let name, let available):
            return "track field '\(name)' is not a field of the service (fields: \(available.joined(separator: ", ")))"
        case .httpStatus(let status, let excerpt):
            return "the service description request returned HTTP \(status): \(excerpt)"
        case .invalid(let detail):
            return "the service description is malformed: \(detail)"
        }
    }
}
