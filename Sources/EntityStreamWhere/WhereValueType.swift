import EntityStreamModel
/// The static (compile-time) type of a where-clause value, derived from the
/// schema's declared field types and from literals.
///
/// `dynamic` covers fields whose declared type tells nothing (`.other(_)`):
/// they pass every static check and are checked at evaluation time only.
/// `null` is the type of the `NULL` literal (and of expressions folded to it).
enum WhereValueType: Sendable, Hashable {
    case number, string, date, dynamic, null

    init(_ fieldType: FieldType) {
        switch fieldType {
        case .objectID, .smallInteger, .integer, .bigInteger, .single, .double: self = .number
        case .string, .guid, .globalID: self = .string
        case .date: self = .date
        case .other: self = .dynamic
        }
    }

    /// Whether values of the two types can be compared (`=`, `<`, IN, BETWEEN).
    /// Numbers and dates mix (dates as epoch milliseconds).
    func isComparable(with other: WhereValueType) -> Bool {
        switch (self, other) {
        case (.null, _), (_, .null), (.dynamic, _), (_, .dynamic): return true
        case (.number, .number), (.number, .date), (.date, .number), (.date, .date): return true
        case (.string, .string): return true
        default: return false
        }
    }

    /// Usable where a number is needed (arithmetic, unary minus, ABS).
    var isNumeric: Bool { self != .string }

    /// Usable where a string is needed (LIKE, UPPER, LOWER, CHAR_LENGTH).
    var isTextual: Bool { self == .string || self == .dynamic || self == .null }
}
