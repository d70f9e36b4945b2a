import EntityStreamTransport

/// `callback=NAME` (JSONP, which older ArcGIS JavaScript clients use where
/// CORS is missing): the JSON answer wrapped as `NAME(…);`, served as
/// JavaScript. A name that is not a plain JavaScript identifier path
/// (letters, digits, `_`, `$`, `.`) is refused with 400, so nothing a
/// client sends can be injected into the script.
enum JSONP {
    static func wrap(_ response: HTTPServerResponse, callback: String) -> HTTPServerResponse {
        guard isSafe(callback) else {
            return HTTPServerResponse(status: 400, contentType: "application/json",
                                      body: DescriptionBuilder.error(code: 400, message: "callback '\(callback.prefix(80))' is not a JavaScript function name"))
        }
        var body = Array(callback.utf8)
        body.append(UInt8(ascii: "("))
        body.append(contentsOf: response.body)
        body.append(contentsOf: Array(");".utf8))
        return HTTPServerResponse(status: response.status, contentType: "application/javascript", headers: response.headers, body: body)
    }

    static func isSafe(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 128, !(first.properties.numericType != nil) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$" || $0 == ".") }
    }
}
