import EntityStreamCore
import EntityStreamModel
import EntityStreamTransport
import EntityStreamFeatures

/// What every ArcGIS REST client reads off a raw HTTP answer before
/// parsing its body: a token refusal, the announced length, a printable
/// excerpt. Pure functions.
enum ArcGISResponse {
    /// The ArcGIS token error (498/499) a response carries, if any. Error
    /// objects are small: a large body (a page of features) is not parsed twice.
    static func tokenRejection(_ response: HTTPResponse) -> ArcGISError? {
        if response.body.count < 64 * 1024, let error = ArcGISError(bytes: response.body), error.isTokenError { return error }
        if response.status == 498 { return .invalidToken }
        if response.status == 499 { return .tokenRequired }
        return nil
    }

    /// The body length the response announced (`Content-Length`), if any.
    static func contentLength(_ response: HTTPResponse) -> Int? {
        response.headers["content-length"].flatMap { Int($0.split(separator: " ").first ?? "") }
    }

    /// The start of a body as one printable line, for error messages.
    static func excerpt(_ body: [UInt8]) -> String {
        body.isEmpty ? "(empty body)" : FeatureSetReader.excerpt(body)
    }
}
