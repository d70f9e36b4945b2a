/// The stream connection's socket token: the short-lived token the service
/// description hands out in `streamUrls[].token`, falling back to the
/// user's token when the description gives none.
///
/// The connection reloads the description on every attempt and records it
/// here (``update(descriptionToken:)``); after the server closed the socket
/// for the token (4401/498/499), ``renewToken(rejected:)`` offers the
/// token the latest description gave when it differs from the rejected one,
/// else ``TokenRenewal/unavailable``. An actor; never logs tokens.
public actor StreamSocketTokenSource: TokenSource {
    private let fallback: any TokenSource
    private var descriptionToken: String?

    public init(fallback: any TokenSource) {
        self.fallback = fallback
    }

    /// Records the token of the description just loaded (nil when it gives none).
    public func update(descriptionToken: String?) {
        self.descriptionToken = descriptionToken
    }

    public func token() async -> String? {
        if let descriptionToken { return descriptionToken }
        return await fallback.token()
    }

    public func renewToken(rejected: String?) async -> TokenRenewal {
        let current = await token()
        return current == rejected ? .unavailable : .renewed(current)
    }
}
