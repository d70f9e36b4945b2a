/// ArcGIS REST's error answer: `{"error":{"code":400,"message":"…","details":["…"]}}`,
/// as servers (feature services and geoprocessing tasks alike) answer a bad
/// request (400), a missing or invalid token (499, 498), or anything else
/// they refuse. Wire data: the code, message and details as the server sent them.
///
/// ``init(json:)``/``init(bytes:)`` read one (nil when the text is not an
/// error object, so callers can tell "an error" from "something else");
/// ``json()`` writes one. ``description`` is a one-line text for users:
/// `ArcGIS error 400: Unable to complete operation. ('where' parameter is invalid: …)`.
/// A plain value.
public struct ArcGISError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error code; nil when the answer has none.
    public var code: Int?
    public var message: String
    public var details: [String]

    public init(code: Int?, message: String, details: [String] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// The error a server gives for a bad query parameter: code 400, the
    /// standard message, and one detail naming the parameter and the reason.
    public static func invalidParameter(_ parameter: String, _ reason: String) -> ArcGISError {
        ArcGISError(code: 400, message: "Unable to complete operation.", details: ["'\(parameter)' parameter is invalid: \(reason)"])
    }

    /// 498: the token is invalid or expired.
    public static let invalidToken = ArcGISError(code: 498, message: "Invalid Token")
    /// 499: the resource needs a token.
    public static let tokenRequired = ArcGISError(code: 499, message: "Token Required")

    /// True for 498 (invalid token) and 499 (token required).
    public var isTokenError: Bool { code == 498 || code == 499 }

    /// Reads `{"error":{…}}`; nil when `value` has no non-null `error` member.
    /// A code given as a string ("400") is read as a number; details that
    /// are not strings are kept as their JSON text.
    public init?(json value: JSONValue) {
        guard let error = value["error"], !error.isNull else { return nil }
        let code = error["code"].flatMap { $0.intValue ?? $0.stringValue.flatMap { Int64($0) } }.flatMap { Int(exactly: $0) }
        let message = error["message"]?.stringValue ?? error.stringValue ?? "no message"
        let details = error["details"]?.arrayValue?.map { $0.stringValue ?? $0.description } ?? []
        self.init(code: code, message: message, details: details)
    }

    /// Reads an error object from a response body; nil when the body is not
    /// JSON or not an error object.
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return nil }
        self.init(json: value)
    }

    /// `{"error":{"code":…,"message":…,"details":[…]}}`.
    public func json() -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.appendRaw("{\"error\":{\"code\":")
        if let code { writer.appendInt(Int64(code)) } else { writer.appendNull() }
        writer.appendRaw(",\"message\":")
        writer.appendString(message)
        writer.appendRaw(",\"details\":[")
        for (index, detail) in details.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(detail)
        }
        writer.appendRaw("]}}")
        return writer.bytes
    }

    public var description: String {
        "ArcGIS error\(code.map { " \($0)" } ?? ""): \(message)" + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))")
    }
}
