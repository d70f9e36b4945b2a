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
