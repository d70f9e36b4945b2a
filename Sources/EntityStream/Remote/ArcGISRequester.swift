import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// Sends the requests of one ArcGIS REST client (``FeatureLayerClient``,
/// ``GeoprocessingClient``) to its endpoint, with the token, and hands back
/// the answers the client then reads.
///
/// ``send(_:path:parameters:)``:
/// - asks the ``TokenSource`` for the token, and sends `<base>[/path]` with
///   the endpoint's own query items (less those the request sets), the
///   request's parameters and `token`: a GET, or a POST form when asked for
///   or when the GET URL would be longer than `maximumGETLength`;
/// - on an ArcGIS token rejection (498/499, as HTTP status or error JSON,
///   ``ArcGISResponse/tokenRejection(_:)``) asks the source once for
///   another token and sends the request again with it; a second rejection,
///   or no other token, throws ``ArcGISRequestError/tokenRejected(_:renewed:)``;
/// - throws ``ArcGISRequestError/truncated(url:received:expected:)`` for a
///   body shorter than its `Content-Length`,
///   ``ArcGISRequestError/unreachable(url:detail:)`` with the transport's
///   message (no answer, timeout, body over the configured limit) and
///   ``ArcGISRequestError/cancelled`` when the calling task is cancelled;
/// - otherwise returns the ``ArcGISAnswer``, whatever its HTTP status.
///
/// Error texts carry ``displayURL`` and never the token. A `Sendable` value
/// without mutable state: the renewal state of a request lives in that one
/// call, and the token itself in the ``TokenSource`` (an actor or a locked
/// value), so concurrent requests are independent, each renewing at most once.
package struct ArcGISRequester: Sendable {
    /// The endpoint as shown to users: no query, no token.
    let displayURL: String
    private let extraParameters: [(String, String)]
    private let tokenSource: any TokenSource
    private let http: HTTPClient
    private let maximumGETLength: Int?

    /// `endpoint`'s base URL and query items are used for every request;
    /// its token only when `tokenSource` is nil. `maximumGETLength` nil:
    /// a GET is never turned into a POST.
    package init(endpoint: ArcGISEndpoint, keepingQueryItems: Bool, tokenSource: (any TokenSource)?, http: HTTPClient, maximumGETLength: Int?) {
        displayURL = endpoint.base
        extraParameters = keepingQueryItems ? endpoint.extraParameters : []
        self.tokenSource = tokenSource ?? StaticTokenSource(endpoint.token)
        self.http = http
        self.maximumGETLength = maximumGETLength
    }

    /// Sends one request, renewing the token once on a rejection (see the type's contract).
    package func send(_ method: HTTPMethod, path: String?, parameters: [(String, String)]) async throws(ArcGISRequestError) -> ArcGISAnswer {
        var token = await tokenSource.token()
        var renewed = false
        while true {
            guard !Task.isCancelled else { throw .cancelled }
            let response = try await exchange(method, path: path, parameters: parameters, token: token)
            if let rejection = ArcGISResponse.tokenRejection(response) {
                if !renewed, case .renewed(let fresh) = await tokenSource.renewToken(rejected: token) {
                    token = fresh
                    renewed = true
                    continue
                }
                throw .tokenRejected(rejection, renewed: renewed)
            }
            if let expected = ArcGISResponse.contentLength(response), response.body.count < expected {
                throw .truncated(url: displayURL, received: response.body.count, expected: expected)
            }
            return ArcGISAnswer(response: response, url: displayURL, token: token)
        }
    }

    /// One HTTP exchange with `token`; transport failures redacted.
    private func exchange(_ method: HTTPMethod, path: String?, parameters: [(String, String)], token: String?) async throws(ArcGISRequestError) -> HTTPResponse {
        let url = path.map { "\(displayURL)/\($0)" } ?? displayURL
        let names = Set(parameters.map { Schema.fold($0.0) })
        var items = extraParameters.filter { !names.contains(Schema.fold($0.0)) } + parameters
        if let token { items.append(("token", token)) }
        let request: HTTPRequest
        switch method {
        case .post:
            request = .postForm(url, items)
        case .get, .options:
            let query = PercentEncoding.query(items)
            if let maximumGETLength, url.utf8.count + 1 + query.utf8.count > maximumGETLength {
                request = .postForm(url, items)
            } else {
                request = HTTPRequest(method: .get, url: "\(url)?\(query)")
            }
        }
        do {
            return try await http.send(request)
        } catch {
            if case .cancelled = error { throw .cancelled }
            if Task.isCancelled { throw .cancelled }
            throw .unreachable(url: displayURL, detail: ServiceURLs.redacted(error.description).redactingToken(token))
        }
    }
}
