/// How ``HTTPClient`` behaves.
public struct HTTPClientConfiguration: Sendable {
    /// Limit for the whole exchange, redirects included.
    public var timeout: Duration = .seconds(30)
    /// Larger bodies fail with ``TransportError/bodyTooLarge(limit:)``.
    public var maximumBodySize = 16 * 1024 * 1024
    /// Redirects followed before ``TransportError/tooManyRedirects(limit:)``.
    public var maximumRedirects = 5
    /// Follow a redirect from `https` to plain `http` (off: such a redirect
    /// fails with ``TransportError/insecureRedirect(from:to:)``, because the
    /// request, token included, would travel unencrypted).
    public var allowsRedirectToPlaintext = false
    /// Accept self-signed certificates (local simulator only).
    public var allowSelfSignedCertificates = false

    public init() {}
}
