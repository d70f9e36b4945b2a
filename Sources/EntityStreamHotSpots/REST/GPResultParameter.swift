import EntityStreamCore
import EntityStreamModel

/// The answer to `GET <task>/jobs/<jobId>/results/<name>?f=json`:
/// `{"paramName": "Output_Features", "dataType": "GPFeatureRecordSetLayer", "value": {…}}`.
/// The value is kept as JSON (a feature set, a string, a number, a URL object…).
public struct GPResultParameter: Sendable, Hashable {
    public var name: String
    public var dataType: String
    public var value: JSONValue

    public init(name: String, dataType: String, value: JSONValue) {
        self.name = name
        self.dataType = dataType
        self.value = value
    }

    /// `value` is required (it may be null); `dataType` may be absent (read as "").
    public init(json: JSONValue) throws(GPRESTError) {
        let reader = try GPJSONReader(json, name: "result parameter")
        name = try reader.string("paramName")
        dataType = try reader.optionalString("dataType") ?? ""
        guard let value = reader.object["value"] else { throw .missingMember("value", in: "result parameter") }
        self.value = value
    }

    public init(parsing bytes: [UInt8]) throws(GPRESTError) {
        let reader = try GPJSONReader.parse(bytes, name: "result parameter")
        try self.init(json: .object(reader.object))
    }

    public var json: JSONValue {
        .object(JSONObject([("paramName", .string(name)), ("dataType", .string(dataType)), ("value", value)]))
    }

    public var encoded: [UInt8] { json.encoded }
}
