import EntityStreamModel
extension Field {
    /// Reads one entry of an Esri `fields` list: `name` (required, non-empty),
    /// `type` (default `esriFieldTypeString`), `alias`, `nullable` (default
    /// true), `length`. Throws a message naming what is wrong.
    public init(esriJSON value: JSONValue) throws(FeatureFormatError) {
        guard let object = value.objectValue else { throw FeatureFormatError("a field must be an object, not \(value)") }
        guard let name = object["name"]?.stringValue, !name.trimmingSpaces.isEmpty else {
            throw FeatureFormatError("a field has no name")
        }
        let type = object["type"].flatMap(\.stringValue).map(FieldType.init(esriName:)) ?? .string
        let length = object["length"]?.intValue.flatMap { Int(exactly: $0) }
        self.init(name: name, type: type, alias: object["alias"]?.stringValue, nullable: object["nullable"]?.boolValue ?? true, length: length)
    }

    /// Reads an Esri `fields` list; throws naming the entry at fault.
    public static func esriFields(_ value: JSONValue?) throws(FeatureFormatError) -> [Field] {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else { throw FeatureFormatError("'fields' must be an array") }
        var fields: [Field] = []
        for (index, entry) in entries.enumerated() {
            do { fields.append(try Field(esriJSON: entry)) } catch { throw FeatureFormatError("fields[\(index)]: \(error.description)") }
        }
        return fields
    }

    /// The field as an Esri `fields` entry: `{"name","type","alias","nullable"[,"length"]}`
    /// (`length` only when declared).
    public var esriJSON: JSONValue {
        var object = JSONObject([("name", .string(name)), ("type", .string(type.esriName)), ("alias", .string(alias ?? name)),
                                 ("nullable", .bool(nullable))])
        if let length { object.append(key: "length", value: .int(Int64(length))) }
        return .object(object)
    }
}

/// A JSON document that is valid JSON but not the Esri/GeoJSON structure
/// expected (a field without a name, `features` not an array, …), with what
/// is wrong. A plain value.
public struct FeatureFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
