/// One attribute value of an observation, typed as Esri JSON carries it.
///
/// Values are aligned to a ``Schema``'s field list: the value at index `i`
/// belongs to `schema.fields[i]`. `esriFieldTypeDate` values are
/// ``date(milliseconds:)`` (epoch milliseconds, UTC), so that where clauses can
/// compare them with `date '…'` literals and output can print them as ISO-8601.
///
/// Equality and hashing are exact: strings by their Unicode scalars
/// (``ExactText``; "é" and "e"+U+0301 are different values, as in SQL),
/// doubles as `Double` compares them (0.0 == -0.0, NaN equals nothing),
/// different cases never equal.
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

    @inlinable
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return ExactText.equal(a, b)
        case let (.date(a), .date(b)): return a == b
        default: return false
        }
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let flag): hasher.combine(1 as UInt8); hasher.combine(flag)
        case .int(let number): hasher.combine(2 as UInt8); hasher.combine(number)
        case .double(let number): hasher.combine(3 as UInt8); hasher.combine(number)
        case .string(let text): hasher.combine(4 as UInt8); ExactText.hash(text, into: &hasher)
        case .date(let milliseconds): hasher.combine(5 as UInt8); hasher.combine(milliseconds)
        }
    }
}
