/// HTTP request methods the transport speaks.
public enum HTTPMethod: String, Sendable, Hashable {
    case get = "GET"
    case post = "POST"
    /// A CORS preflight (servers answer it; the client does not send it).
    case options = "OPTIONS"
}
