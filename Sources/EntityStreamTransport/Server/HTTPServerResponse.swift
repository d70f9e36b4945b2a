/// What a responder answers to an ``HTTPServerRequest``.
public struct HTTPServerResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int = 200, contentType: String = "application/json", headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String = "application/json", headers: HTTPHeaders = [:], text: String) {
        self.init(status: status, contentType: contentType, headers: headers, body: Array(text.utf8))
    }
}
