import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// An ArcGIS REST URL as the clients (``FeatureLayerClient``,
/// ``GeoprocessingClient``) take it: the base URL they send requests to,
/// the token its query string carries, and its other query items.
///
/// ``init(parsing:droppingSuffix:)`` drops trailing slashes and the given
/// operation suffix (`/query`, `/submitJob`), requires `http(s)`, and reads
/// the query string (a malformed one is refused). Every error text is
/// redacted (no token). A value type; `Sendable`.
package struct ArcGISEndpoint: Sendable {
    /// The URL without query string, suffix or trailing slashes.
    package let base: String
    /// The `token` query item, if any.
    let token: String?
    /// The other query items, in order (`f` left out: each request sets it).
    let extraParameters: [(String, String)]

    /// Parses `url`; throws the reason (already redacted) when it is not a usable http(s) URL.
    package init(parsing url: String, droppingSuffix suffix: String) throws(ArcGISEndpointError) {
        let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var base = String(parts[0])
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        do throws(TransportError) {
            let parsed = try TransportURL(base)
            guard !parsed.isWebSocket else { throw TransportError.invalidURL(base, reason: "expected an http:// or https:// URL") }
        } catch {
            throw .invalidURL(error)
        }
        var token: String?
        var extras: [(String, String)] = []
        if parts.count > 1 {
            guard let items = PercentEncoding.parseForm(String(parts[1])) else {
                throw .malformedQuery(redactedURL: ServiceURLs.redacted(url))
            }
            for (name, value) in items {
                switch Schema.fold(name) {
                case "f": continue
                case "token": token = value
                default: extras.append((name, value))
                }
            }
        }
        self.base = base
        self.token = token
        extraParameters = extras
    }
}

/// Why a URL cannot be an ArcGIS REST endpoint, by what is wrong; the text
/// (``reason``, ``description``) is redacted (no token).
public enum ArcGISEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL without its query string is not an http(s) URL.
    case invalidURL(TransportError)
    /// The query string cannot be read (the whole URL, redacted when thrown).
    case malformedQuery(redactedURL: String)

    /// What is wrong, redacted.
    package var reason: String {
        switch self {
        case .invalidURL(let error): return ServiceURLs.redacted(error.description)
        case .malformedQuery(let url): return "the query string of '\(url)' is malformed"
        }
    }

    public var description: String { reason }
}
