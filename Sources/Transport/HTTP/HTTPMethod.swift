/// HTTP request methods the transport speaks.
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
}
