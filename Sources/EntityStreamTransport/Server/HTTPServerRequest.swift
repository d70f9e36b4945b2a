/// An HTTP request as a ``TransportServer`` hands it to its responder.
public struct HTTPServerRequest: Sendable {
    public var method: HTTPMethod
    /// The decoded path, without the query.
    public var path: String
    /// Decoded query items in order (`+` and `%XX` decoded).
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: HTTPMethod, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first value of query item `name` (case-sensitive), or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Form fields of a POST with an `application/x-www-form-urlencoded` body
    /// (empty when the body is not a valid form).
    public var formFields: [(String, String)] {
        PercentEncoding.parseForm(String(decoding: body, as: UTF8.self)) ?? []
    }
}
