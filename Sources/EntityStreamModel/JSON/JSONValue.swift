/// A parsed JSON value.
///
/// Numbers keep the distinction the text made: a number token without
/// fraction or exponent that fits in 64 bits is ``int(_:)``; every other
/// number is ``double(_:)`` (correctly rounded; magnitudes beyond the Double
/// range become ±infinity, below it ±0). Equality and hashing are structural
/// and exact: `.int(1) != .double(1)`, and objects compare member by member in
/// order (see ``JSONObject``). A value type; `Sendable`.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member named `key` when this is an object (the last one if the key
    /// is repeated), else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range, else nil.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// True for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string of a ``string(_:)``, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The Bool of a ``bool(_:)``, else nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The integer of an ``int(_:)``, else nil (doubles are not converted).
    public var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    /// The numeric value of an ``int(_:)`` or ``double(_:)``, else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The elements of an ``array(_:)``, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The object of an ``object(_:)``, else nil.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }
}
