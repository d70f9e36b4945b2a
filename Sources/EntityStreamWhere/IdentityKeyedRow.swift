/// A row that can also hand out, per field, an 8-byte identity word whose
/// equality implies equality of the values: within one source, two rows
/// whose words for a field are equal hold equal values in that field
/// (strings equal by Swift `==`; the entity store's packed words, where
/// equal strings share one interned id, are such words). The converse need not hold (`0.0` and `-0.0` may
/// have different words), and words from two different sources are not
/// comparable. Consumers that group rows (grouped statistics) key groups by
/// these words instead of hashing values, and fall back to
/// ``AttributeRow/value(at:)`` for everything else.
public protocol IdentityKeyedRow: AttributeRow {
    /// The identity word of field `fieldIndex` (any fixed word, e.g. the one
    /// of NULL, for a field the row does not carry; never traps).
    func identityWord(at fieldIndex: Int) -> UInt64
}
