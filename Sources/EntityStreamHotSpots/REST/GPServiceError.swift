import EntityStreamCore
import EntityStreamModel

/// ArcGIS REST's error answer: `{"error": {"code": 400, "message": "…", "details": ["…"]}}`.
public struct GPServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var details: [String]

    public init(code: Int, message: String, details: [String] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// Reads the inner object (the value of `"error"`). A missing code reads as 0.
    public init(json: JSONValue) throws(GPRESTError) {
        guard let object = json.objectValue else { throw .wrongType("error", expected: "an object", in: "error response") }
        guard let message = object["message"]?.stringValue else { throw .missingMember("message", in: "error response") }
        self.message = message
        code = object["code"]?.intValue.flatMap { Int(exactly: $0) } ?? 0
        details = object["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The whole answer, `{"error": {…}}`.
    public var json: JSONValue {
        .object(JSONObject([("error", .object(JSONObject([
            ("code", .int(Int64(code))), ("message", .string(message)), ("details", .array(details.map { .string($0) })),
        ])))]))
    }

    public var description: String {
        "the server answered error \(code): \(message)" + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))")
    }
}
