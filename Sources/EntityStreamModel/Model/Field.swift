/// The Esri field types a stream service can declare (`esriFieldType…`).
///
/// Unknown type names are kept verbatim in ``other(_:)`` so nothing a server
/// says is lost.
public enum FieldType: Sendable, Hashable {
    case objectID, smallInteger, integer, bigInteger, single, double, string, date, guid, globalID
    case other(String)

    /// Parses an `esriFieldType…` name; never fails.
    public init(esriName: String) {
        switch esriName {
        case "esriFieldTypeOID": self = .objectID
        case "esriFieldTypeSmallInteger": self = .smallInteger
        case "esriFieldTypeInteger": self = .integer
        case "esriFieldTypeBigInteger": self = .bigInteger
        case "esriFieldTypeSingle": self = .single
        case "esriFieldTypeDouble": self = .double
        case "esriFieldTypeString": self = .string
        case "esriFieldTypeDate": self = .date
        case "esriFieldTypeGUID": self = .guid
        case "esriFieldTypeGlobalID": self = .globalID
        default: self = .other(esriName)
        }
    }

    /// How messages name the type: "integer", "date", "object id", …
    public var word: String {
        switch self {
        case .objectID: return "object id"
        case .smallInteger: return "small integer"
        case .integer: return "integer"
        case .bigInteger: return "big integer"
        case .single: return "single"
        case .double: return "double"
        case .string: return "string"
        case .date: return "date"
        case .guid: return "GUID"
        case .globalID: return "global id"
        case .other(let name): return name
        }
    }

    /// The `esriFieldType…` name.
    public var esriName: String {
        switch self {
        case .objectID: return "esriFieldTypeOID"
        case .smallInteger: return "esriFieldTypeSmallInteger"
        case .integer: return "esriFieldTypeInteger"
        case .bigInteger: return "esriFieldTypeBigInteger"
        case .single: return "esriFieldTypeSingle"
        case .double: return "esriFieldTypeDouble"
        case .string: return "esriFieldTypeString"
        case .date: return "esriFieldTypeDate"
        case .guid: return "esriFieldTypeGUID"
        case .globalID: return "esriFieldTypeGlobalID"
        case .other(let name): return name
        }
    }

    /// Integer-valued types (values decode as ``AttributeValue/int(_:)``).
    public var isInteger: Bool {
        switch self {
        case .objectID, .smallInteger, .integer, .bigInteger: return true
        default: return false
        }
    }

    /// Floating-point types (values decode as ``AttributeValue/double(_:)``).
    public var isFloatingPoint: Bool { self == .single || self == .double }
}

/// One field of a service's or layer's schema, as its `fields` list declares it.
public struct Field: Sendable, Hashable {
    public var name: String
    public var type: FieldType
    public var alias: String?
    public var nullable: Bool
    /// The declared maximum length of a string field (`length`), when given.
    public var length: Int?

    public init(name: String, type: FieldType, alias: String? = nil, nullable: Bool = true, length: Int? = nil) {
        self.name = name
        self.type = type
        self.alias = alias
        self.nullable = nullable
        self.length = length
    }
}
