import EntityStreamModel
extension Field {
    /// Reads one entry of an Esri `fields` list: `name` (required, non-empty),
    /// `type` (default `esriFieldTypeString`), `alias`, `nullable` (default
    /// true), `length`. Throws ``FeatureFormatError`` naming what is wrong.
    public init(esriJSON value: JSONValue) throws(FeatureFormatError) {
        guard let object = value.objectValue else { throw .fieldNotObject(value) }
        guard let name = object["name"]?.stringValue, !name.trimmingSpaces.isEmpty else {
            throw .fieldWithoutName
        }
        let type = object["type"].flatMap(\.stringValue).map(FieldType.init(esriName:)) ?? .string
        let length = object["length"]?.intValue.flatMap { Int(exactly: $0) }
        self.init(name: name, type: type, alias: object["alias"]?.stringValue, nullable: object["nullable"]?.boolValue ?? true, length: length)
    }

    /// Reads an Esri `fields` list; throws naming the entry at fault.
    public static func esriFields(_ value: JSONValue?) throws(FeatureFormatError) -> [Field] {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else { throw .fieldsNotArray }
        var fields: [Field] = []
        for (index, entry) in entries.enumerated() {
            do { fields.append(try Field(esriJSON: entry)) } catch { throw .field(index: index, error) }
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

/// An Esri `fields` list that is valid JSON but not the structure expected,
/// by what is wrong (a field without a name, `fields` not an array, …).
/// ``description`` reads `fields[2]: a field has no name`. A plain value.
public indirect enum FeatureFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An entry of `fields` is not a JSON object (the entry).
    case fieldNotObject(JSONValue)
    /// An entry of `fields` has no `name`, or a blank one.
    case fieldWithoutName
    /// `fields` is there but not an array.
    case fieldsNotArray
    /// The entry at `index` of `fields` is wrong, and why.
    case field(index: Int, FeatureFormatError)

    public var description: String {
        switch self {
        case .fieldNotObject(let value): return "a field must be an object, not \(value)"
        case .fieldWithoutName: return "a field has no name"
        case .fieldsNotArray: return "'fields' must be an array"
        case .field(let index, let error): return "fields[\(index)]: \(error.description)"
        }
    }
}
