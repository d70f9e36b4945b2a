import EntityStreamTransport
import EntityStreamModel
import Foundation

/// Cross-origin resource sharing as ArcGIS Server does it by default
/// (`allowedOrigins` `*`): every REST answer carries
/// `Access-Control-Allow-Origin` (the request's `Origin`, with
/// `Vary: Origin` and `Access-Control-Allow-Credentials: true`, or `*`
/// when none came), and a preflight (`OPTIONS`) is answered 204 with the
/// methods and headers a client may use, `X-Esri-Authorization` among them.
///
/// Restricted to ``allowedOrigins`` (`--cors-origins`), an origin outside
/// the list gets no CORS headers (the browser refuses the answer), its
/// preflight 403, and its WebSocket upgrades 403. Origins compare
/// ASCII case-insensitively, without a trailing `/`. A plain value.
public struct CORSPolicy: Sendable, Hashable {
    /// nil: every origin; otherwise these (`scheme://host[:port]`).
    public var allowedOrigins: [String]?

    /// Methods a cross-origin client may use.
    public static let allowedMethods = "GET, POST, OPTIONS"
    /// Request headers a cross-origin client may send.
    public static let allowedHeaders = ["X-Esri-Authorization", "Authorization", "Content-Type", "X-Requested-With", "Cache-Control"]
    /// How long a browser may cache a preflight (seconds).
    public static let maxAge = 86_400
    /// The request headers libwebsockets must keep for this policy and for tokens.
    public static let requestHeaders = ["X-Esri-Authorization", "Access-Control-Request-Headers", "Access-Control-Request-Method"]

    public init(allowedOrigins: [String]? = nil) {
        self.allowedOrigins = allowedOrigins
    }

    /// Reads `--cors-origins`: `*`, or origins separated by commas.
    /// Throws ``SimulatorError`` for an origin that is not `scheme://host[:port]`.
    public static func parse(_ text: String) throws(SimulatorError) -> CORSPolicy {
        let trimmed = text.trimmingSpaces
        if trimmed == "*" { return CORSPolicy() }
        var origins: [String] = []
        for part in trimmed.split(separator: ",") {
            let origin = normalized(String(part).trimmingSpaces)
            guard let schemeEnd = origin.range(of: "://"), !origin[schemeEnd.upperBound...].isEmpty,
                  !origin[schemeEnd.upperBound...].contains("/"), origin.hasPrefix("http") else {
                throw .corsOrigin(String(part))
            }
            origins.append(origin)
        }
        guard !origins.isEmpty else { throw .corsOriginsEmpty }
        return CORSPolicy(allowedOrigins: origins)
    }

    static func normalized(_ origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// True when `origin` may read the answers.
    public func allows(_ origin: String) -> Bool {
        guard let allowedOrigins else { return true }
        return allowedOrigins.contains(Self.normalized(origin))
    }

    /// The answer to an `OPTIONS` request.
    public func preflight(_ request: HTTPServerRequest) -> HTTPServerResponse {
        if let origin = request.headers["Origin"], !allows(origin) {
            return HTTPServerResponse(status: 403, contentType: "application/json",
                                      body: DescriptionBuilder.error(code: 403, message: "Origin \(origin.prefix(200)) is not allowed"))
        }
        var response = HTTPServerResponse(status: 204, contentType: "text/plain")
        var headers = Self.allowedHeaders
        if let asked = request.headers["Access-Control-Request-Headers"] {
            for name in asked.split(separator: ",").map({ String($0).trimmingSpaces }) where !name.isEmpty
                && !headers.contains(where: { $0.lowercased() == name.lowercased() })
                && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
                headers.append(name)
            }
        }
        response.headers.add(name: "Access-Control-Allow-Methods", value: Self.allowedMethods)
        response.headers.add(name: "Access-Control-Allow-Headers", value: headers.joined(separator: ", "))
        response.headers.add(name: "Access-Control-Max-Age", value: String(Self.maxAge))
        response.headers.add(name: "Allow", value: Self.allowedMethods)
        return decorate(response, for: request)
    }

    /// `response` with the CORS headers `request`'s origin gets.
    public func decorate(_ response: HTTPServerResponse, for request: HTTPServerRequest) -> HTTPServerResponse {
        var response = response
        if let origin = request.headers["Origin"] {
            guard allows(origin) else { return response }
            response.headers.add(name: "Access-Control-Allow-Origin", value: origin)
            response.headers.add(name: "Access-Control-Allow-Credentials", value: "true")
            response.headers.add(name: "Vary", value: "Origin")
        } else if allowedOrigins == nil {
            response.headers.add(name: "Access-Control-Allow-Origin", value: "*")
        }
        return response
    }
}
