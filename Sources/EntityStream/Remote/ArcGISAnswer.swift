import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// An answer ``ArcGISRequester`` got for a request: the token was accepted
/// and the body is as long as announced. Reading the body is the client's
/// part; when its reader fails, these functions say why as an
/// ``ArcGISRequestError`` naming ``url`` (the display URL), with the token
/// the request carried scrubbed from every text. A value; `Sendable`.
package struct ArcGISAnswer: Sendable {
    let response: HTTPResponse
    /// The endpoint as shown to users: no query, no token.
    let url: String
    /// The token the request was sent with, only to scrub it from texts.
    private let token: String?

    init(response: HTTPResponse, url: String, token: String?) {
        self.response = response
        self.url = url
        self.token = token
    }

    package var body: [UInt8] { response.body }

    /// A body that is not JSON: JSON cut short (``ArcGISRequestError/truncated(url:received:expected:)``),
    /// a server error status (5xx, ``ArcGISRequestError/httpStatus(url:status:excerpt:)``), or not ArcGIS at all.
    package func notJSON() -> ArcGISRequestError {
        do throws(JSONError) { try JSONParser.validate(body) } catch {
            if case .truncated(let count) = FeatureSetReader.classify(error, body) { return cutShort(after: count) }
        }
        if response.status >= 500 {
            return .httpStatus(url: url, status: response.status, excerpt: ArcGISResponse.excerpt(body))
        }
        return .notArcGIS(url: url, status: response.status, contentType: response.headers["content-type"],
                          excerpt: ArcGISResponse.excerpt(body))
    }

    /// A body whose JSON stops after `bytes` bytes (its `Content-Length` was kept).
    func cutShort(after bytes: Int) -> ArcGISRequestError {
        .truncated(url: url, received: bytes, expected: nil)
    }

    /// JSON the reader could not use (`detail`): an HTTP error status when the
    /// status is not 2xx, else an unexpected answer (the token scrubbed from `detail`).
    package func unexpected(_ detail: String) -> ArcGISRequestError {
        if !(200..<300).contains(response.status) {
            return .httpStatus(url: url, status: response.status, excerpt: ArcGISResponse.excerpt(body))
        }
        return .invalidResponse(url: url, detail: detail.redactingToken(token))
    }
}
