import Foundation

/// A parsed `ws`, `wss`, `http` or `https` URL: what libwebsockets needs to
/// open a connection.
///
/// Parsing is strict about what it cannot handle (user-info, unknown schemes,
/// bad ports) and throws ``TransportError/invalidURL(_:reason:)`` naming it.
public struct TransportURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable { case ws, wss, http, https }

    public var scheme: Scheme
    /// Host name or address, without IPv6 brackets.
    public var host: String
    public var port: Int
    /// Path and query, always starting with `/`.
    public var pathAndQuery: String

    public var usesTLS: Bool { scheme == .wss || scheme == .https }
    public var isWebSocket: Bool { scheme == .ws || scheme == .wss }

    /// The `Host` header value (`host` or `host:port` when not the default).
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let defaultPort = usesTLS ? 443 : 80
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    public var description: String { "\(scheme.rawValue)://\(hostHeader)\(pathAndQuery)" }

    public init(_ text: String) throws(TransportError) {
        guard let schemeEnd = text.range(of: "://") else {
            throw .invalidURL(text, reason: "missing scheme (expected ws://, wss://, http:// or https://)")
        }
        guard let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased()) else {
            throw .invalidURL(text, reason: "unsupported scheme '\(text[..<schemeEnd.lowerBound])'")
        }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var pathAndQuery = String(rest[authorityEnd...])
        if let hash = pathAndQuery.firstIndex(of: "#") { pathAndQuery = String(pathAndQuery[..<hash]) }
        if pathAndQuery.isEmpty || pathAndQuery.first == "?" { pathAndQuery = "/" + pathAndQuery }
        if authority.contains("@") { throw .invalidURL(text, reason: "user-info in URLs is not supported") }
        if pathAndQuery.contains(where: { $0 == " " || $0.isNewline }) {
            throw .invalidURL(text, reason: "spaces and line breaks must be percent-encoded")
        }

        var host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text, reason: "unclosed '[' in IPv6 host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority[authority.index(after: close)...]
            if !afterClose.isEmpty {
                guard afterClose.first == ":" else { throw .invalidURL(text, reason: "unexpected text after IPv6 host") }
                portText = afterClose.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw .invalidURL(text, reason: "missing host") }
        let defaultPort = (scheme == .wss || scheme == .https) ? 443 : 80
        var port = defaultPort
        if let portText {
            guard let parsed = Int(portText), (1...65535).contains(parsed) else {
                throw .invalidURL(text, reason: "invalid port '\(portText)'")
            }
            port = parsed
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.pathAndQuery = pathAndQuery
    }

    /// Resolves `reference` (absolute, or a path such as a `Location` header)
    /// against this URL.
    public func resolving(_ reference: String) throws(TransportError) -> TransportURL {
        if reference.contains("://") { return try TransportURL(reference) }
        var copy = self
        if reference.hasPrefix("//") {
            return try TransportURL("\(scheme.rawValue):\(reference)")
        } else if reference.hasPrefix("/") {
            copy.pathAndQuery = reference
        } else {
            let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
            copy.pathAndQuery = directory + reference
        }
        return copy
    }
}
