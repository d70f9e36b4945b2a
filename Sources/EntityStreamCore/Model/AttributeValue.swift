/// One attribute value of an observation, typed as Esri JSON carries it.
///
/// Values are aligned to a ``Schema``'s field list: the value at index `i`
/// belongs to `schema.fields[i]`. `esriFieldTypeDate` values are
/// ``date(milliseconds:)`` (epoch milliseconds, UTC), so that where clauses can
/// compare them with `date '…'` literals and output can print them as ISO-8601.
public enum AttributeValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// Epoch milliseconds, UTC.
    case date(milliseconds: Int64)

    /// True for ``null``.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The numeric value of an int, double or date, else nil.
    @inlinable public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .date(let v): return Double(v)
        default: return nil
        }
    }
}
