import EntityStreamModel
/// Anything whose attribute values can be read by field index, aligned to a
/// ``Schema`` (the value at index `i` belongs to `schema.fields[i]`).
///
/// ``WhereClause`` reads rows only through this protocol, so observations,
/// stored records and test fixtures can all be filtered by one engine.
/// Implementations must return ``AttributeValue/null`` for an index the row
/// does not carry (never trap): a clause compiled against a schema may meet
/// rows that are shorter than that schema.
public protocol AttributeRow {
    /// The value of field `fieldIndex`, or `.null` when the row does not carry it.
    func value(at fieldIndex: Int) -> AttributeValue
}

extension Observation: AttributeRow {
    /// The value of field `fieldIndex` via ``Observation/attribute(_:)``
    /// (`.null` for fields the observation does not carry).
    @inlinable public func value(at fieldIndex: Int) -> AttributeValue {
        attribute(fieldIndex)
    }
}

/// A row with no values at all; every field reads as NULL. Used to fold
/// constant sub-expressions at compile time with the very same evaluator.
struct WhereNullRow: AttributeRow {
    func value(at fieldIndex: Int) -> AttributeValue { .null }
}
