import EntityStreamTransport

/// Where an ArcGIS client gets the token it sends, and a fresh one when the
/// server rejects it (ArcGIS 498 invalid/expired, 499 required) — shared by
/// the stream connection and the feature-layer client.
///
/// A client asks ``token()`` before a request and, when the server rejects
/// that token, asks ``renewToken(rejected:)`` once: ``TokenRenewal/renewed(_:)``
/// gives the token to retry with, ``TokenRenewal/unavailable`` means this
/// source has nothing better and the client fails, saying so. Sources are
/// `Sendable` and safe to share between clients. Tokens are credentials:
/// implementations never log or print them.
public protocol TokenSource: Sendable {
    /// The token to send now; nil for none.
    func token() async -> String?
    /// A token to retry with after the server rejected `rejected`.
    func renewToken(rejected: String?) async -> TokenRenewal
}

/// What a ``TokenSource`` answers when asked to replace a rejected token.
public enum TokenRenewal: Sendable, Hashable {
    /// Retry with this token (nil: with none).
    case renewed(String?)
    /// No other token is available.
    case unavailable
}

/// A fixed token (`--token T`), or none. It cannot be renewed: a rejection is final.
public struct StaticTokenSource: TokenSource {
    private let value: String?

    public init(_ token: String?) {
        value = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func token() async -> String? { value }
    public func renewToken(rejected: String?) async -> TokenRenewal { .unavailable }
}

extension String {
    /// The text with every occurrence of `token` (and its percent-encoded
    /// form) replaced by `***`, so an error message can never carry it.
    /// Tokens shorter than 3 characters are left alone (they would garble
    /// ordinary words and are not credentials worth the name).
    public func redactingToken(_ token: String?) -> String {
        guard let token, token.count >= 3 else { return self }
        var text = replacingAll(of: token, with: "***")
        let encoded = PercentEncoding.encode(token)
        if encoded != token { text = text.replacingAll(of: encoded, with: "***") }
        return text
    }

    private func replacingAll(of target: String, with replacement: String) -> String {
        let bytes = Array(utf8)
        let needle = Array(target.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return self }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + needle.count <= bytes.count, bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) {
                result.append(contentsOf: replacement.utf8)
                index += needle.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
