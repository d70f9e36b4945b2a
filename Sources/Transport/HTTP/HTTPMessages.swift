/// HTTP request methods the transport speaks.
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
}

/// An HTTP request for ``HTTPClient``.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A POST with an `application/x-www-form-urlencoded` body.
    public static func postForm(_ url: String, _ fields: [(String, String)], headers: HTTPHeaders = [:]) -> HTTPRequest {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        return HTTPRequest(method: .post, url: url, headers: headers, body: Array(PercentEncoding.query(fields).utf8))
    }
}

/// A complete HTTP response: status, headers and the whole body.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The URL that answered, after redirects.
    public var url: String

    public init(status: Int, headers: HTTPHeaders, body: [UInt8], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The body decoded as UTF-8.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// How ``HTTPClient`` behaves.
public struct HTTPClientConfiguration: Sendable {
    /// Limit for the whole exchange, redirects included.
    public var timeout: Duration = .seconds(30)
    /// Larger bodies fail with ``TransportError/bodyTooLarge(limit:)``.
    public var maximumBodySize = 16 * 1024 * 1024
    /// Redirects followed before ``TransportError/tooManyRedirects(limit:)``.
    public var maximumRedirects = 5
    /// Accept self-signed certificates (local simulator only).
    public var allowSelfSignedCertificates = false

    public init() {}
}
