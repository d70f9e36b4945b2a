import EntityStreamCore
import Transport

/// An ArcGIS REST URL as the clients (``FeatureLayerClient``,
/// ``GeoprocessingClient``) take it: the base URL they send requests to,
/// the token its query string carries, and its other query items.
///
/// ``init(parsing:droppingSuffix:)`` drops trailing slashes and the given
/// operation suffix (`/query`, `/submitJob`), requires `http(s)`, and reads
/// the query string (a malformed one is refused). Every error text is
/// redacted (no token). A value type; `Sendable`.
struct ArcGISEndpoint: Sendable {
    /// The URL without query string, suffix or trailing slashes.
    let base: String
    /// The `token` query item, if any.
    let token: String?
    /// The other query items, in order (`f` left out: each request sets it).
    let extraParameters: [(String, String)]

    /// Parses `url`; throws the reason (already redacted) when it is not a usable http(s) URL.
    init(parsing url: String, droppingSuffix suffix: String) throws(ArcGISEndpointError) {
        let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var base = String(parts[0])
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        do throws(TransportError) {
            let parsed = try TransportURL(base)
            guard !parsed.isWebSocket else { throw TransportError.invalidURL(base, reason: "expected an http:// or https:// URL") }
        } catch {
            throw ArcGISEndpointError(reason: ServiceURLs.redacted(error.description))
        }
        var token: String?
        var extras: [(String, String)] = []
        if parts.count > 1 {
            guard let items = PercentEncoding.parseForm(String(parts[1])) else {
                throw ArcGISEndpointError(reason: "the query string of '\(ServiceURLs.redacted(url))' is malformed")
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

/// Why a URL cannot be an ArcGIS REST endpoint (redacted text).
struct ArcGISEndpointError: Error, Sendable {
    let reason: String
}

/// What every ArcGIS REST client reads off a raw HTTP answer before
/// parsing its body: a token refusal, the announced length, a printable
/// excerpt. Pure functions.
enum ArcGISResponse {
    /// The ArcGIS token error (498/499) a response carries, if any. Error
    /// objects are small: a large body (a page of features) is not parsed twice.
    static func tokenRejection(_ response: HTTPResponse) -> ArcGISError? {
        if response.body.count < 64 * 1024, let error = ArcGISError(bytes: response.body), error.isTokenError { return error }
        if response.status == 498 { return .invalidToken }
        if response.status == 499 { return .tokenRequired }
        return nil
    }

    /// The body length the response announced (`Content-Length`), if any.
    static func contentLength(_ response: HTTPResponse) -> Int? {
        response.headers["content-length"].flatMap { Int($0.split(separator: " ").first ?? "") }
    }

    /// The start of a body as one printable line, for error messages.
    static func excerpt(_ body: [UInt8]) -> String {
        body.isEmpty ? "(empty body)" : FeatureSetReader.excerpt(body)
    }
}
