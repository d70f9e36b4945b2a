import EntityStreamCore
import EntityStreamModel

/// Why a geoprocessing REST response or request could not be read or built.
/// ``description`` names the member and what was expected.
public enum GPRESTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not JSON (the parser's message, with its byte offset).
    case invalidJSON(String)
    /// A required member is absent (`member` in `object`).
    case missingMember(String, in: String)
    /// A member has the wrong JSON type.
    case wrongType(String, expected: String, in: String)
    /// A `jobStatus` that is not one of ArcGIS's.
    case unknownStatus(String)
    /// The server answered with `{"error": …}`.
    case service(ArcGISError)
    /// A value the request builder cannot express (why).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .invalidJSON(let message): return "the response is not JSON: \(message)"
        case .missingMember(let member, let object): return "\(object) has no '\(member)'"
        case .wrongType(let member, let expected, let object): return "'\(member)' in \(object) must be \(expected)"
        case .unknownStatus(let status): return "unknown job status '\(status.prefix(60))'"
        case .service(let error):
            return "the server answered error \(error.code ?? 0): \(error.message)" + (error.details.isEmpty ? "" : " (\(error.details.joined(separator: "; ")))")
        case .invalidRequest(let reason): return reason
        }
    }
}

/// Reads members of a JSON object with errors that name the member and the
/// object (internal helper of the REST shapes).
struct GPJSONReader {
    let object: JSONObject
    let name: String

    /// The object in `value`, or the service error it carries, or a type error.
    init(_ value: JSONValue, name: String) throws(GPRESTError) {
        guard let object = value.objectValue else { throw .wrongType("(top level)", expected: "an object", in: name) }
        if let error = ArcGISError(json: value) { throw .service(error) }
        self.object = object
        self.name = name
    }

    /// Parses `bytes` as JSON first.
    static func parse(_ bytes: [UInt8], name: String) throws(GPRESTError) -> GPJSONReader {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw .invalidJSON("\(error)") }
        return try GPJSONReader(value, name: name)
    }

    func string(_ key: String) throws(GPRESTError) -> String {
        guard let value = object[key] else { throw .missingMember(key, in: name) }
        guard let string = value.stringValue else { throw .wrongType(key, expected: "a string", in: name) }
        return string
    }

    func optionalString(_ key: String) throws(GPRESTError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .wrongType(key, expected: "a string", in: name) }
        return string
    }

    func optionalArray(_ key: String) throws(GPRESTError) -> [JSONValue]? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let array = value.arrayValue else { throw .wrongType(key, expected: "an array", in: name) }
        return array
    }

    func optionalObject(_ key: String) throws(GPRESTError) -> JSONObject? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let object = value.objectValue else { throw .wrongType(key, expected: "an object", in: name) }
        return object
    }
}

extension JSONValue {
    /// Compact JSON text (UTF-8) of this value.
    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.append(self)
        return writer.bytes
    }
}
