import EntityStreamCore

/// Infers an Esri field type for a CSV column from its values.
///
/// Values are trimmed of spaces and tabs; empty ones (null) are ignored.
/// The column is `integer` when every value is an integer that fits 32 bits,
/// `bigInteger` when they all fit 64 bits, `double` when every value is a
/// number (``CSVNumber``, leading zeros not allowed), and `string` otherwise,
/// including when every value is empty. Quoting plays no part.
struct CSVColumnTypeInference: Sendable {
    private var sawValue = false
    private var allIntegers = true
    private var allNumbers = true
    private var fitsInt32 = true

    mutating func observe(_ trimmed: Substring) {
        guard !trimmed.isEmpty else { return }
        sawValue = true
        guard allNumbers else { return }
        switch CSVNumber.classify(trimmed, allowLeadingZeros: false) {
        case .integer?:
            if let value = Int64(trimmed) {
                if value < Int64(Int32.min) || value > Int64(Int32.max) { fitsInt32 = false }
            } else {
                allIntegers = false
                if CSVNumber.double(trimmed) == nil { allNumbers = false }
            }
        case .decimal?:
            allIntegers = false
            if CSVNumber.double(trimmed) == nil { allNumbers = false }
        case nil:
            allNumbers = false
            allIntegers = false
        }
    }

    var fieldType: FieldType {
        guard sawValue, allNumbers else { return .string }
        if allIntegers { return fitsInt32 ? .integer : .bigInteger }
        return .double
    }

    /// The attribute value of a raw field in a column of type `type`.
    static func value(_ raw: String, type: FieldType) -> AttributeValue {
        let trimmed = CSVNumber.trim(raw)
        if trimmed.isEmpty { return .null }
        switch type {
        case .integer, .bigInteger:
            return CSVNumber.integer(trimmed).map { .int($0) } ?? .string(raw)
        case .double:
            return CSVNumber.double(trimmed).map { .double($0) } ?? .string(raw)
        default:
            return .string(raw)
        }
    }
}
