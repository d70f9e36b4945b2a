import EntityStreamModel
/// Infers an Esri field type for a CSV column from its values.
///
/// Values are trimmed of spaces and tabs; empty ones (null) are ignored.
/// The column is `integer` when every value is an integer that fits 32 bits,
/// `bigInteger` when they all fit 64 bits, `double` when every value is a
/// number (``CSVNumber``, leading zeros not allowed), with `detectsDates`
/// `date` when every value is a date text (``CSVTime/milliseconds(text:)``),
/// and `string` otherwise, including when every value is empty. Quoting
/// plays no part. A value type; feed it with ``observe(_:)`` in one pass.
public struct CSVColumnTypeInference: Sendable {
    private var sawValue = false
    private var allIntegers = true
    private var allNumbers = true
    private var fitsInt32 = true
    private var allDates: Bool

    /// `detectsDates`: whether a column of date texts becomes `date`.
    public init(detectsDates: Bool = false) {
        allDates = detectsDates
    }

    /// Takes one value into account (already trimmed).
    public mutating func observe(_ trimmed: Substring) {
        guard !trimmed.isEmpty else { return }
        sawValue = true
        if allDates, CSVTime.milliseconds(text: trimmed) == nil { allDates = false }
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

    /// The type the values seen so far call for.
    public var fieldType: FieldType {
        guard sawValue else { return .string }
        if allDates { return .date }
        guard allNumbers else { return .string }
        if allIntegers { return fitsInt32 ? .integer : .bigInteger }
        return .double
    }

    /// The attribute value of a raw field in a column of type `type`
    /// (a value that does not fit the type stays a string; empty is null,
    /// except a `quoted` blank field of a text column, which is that text:
    /// `""` is the empty string).
    public static func value(_ raw: String, type: FieldType, quoted: Bool = false) -> AttributeValue {
        let trimmed = CSVNumber.trim(raw)
        if trimmed.isEmpty {
            switch type {
            case .string, .guid, .globalID, .other: return quoted ? .string(raw) : .null
            default: return .null
            }
        }
        switch type {
        case .integer, .bigInteger, .smallInteger, .objectID:
            return CSVNumber.integer(trimmed).map { .int($0) } ?? .string(raw)
        case .double, .single:
            return CSVNumber.double(trimmed).map { .double($0) } ?? .string(raw)
        case .date:
            return CSVTime.milliseconds(text: trimmed).map { .date(milliseconds: $0) } ?? .string(raw)
        default:
            return .string(raw)
        }
    }
}

extension CSVColumnTypeInference {
    /// ``observe(_:)`` on trimmed bytes, the number already read by ``CSVNumber/scan(_:)``
    /// (nil: read it here). What the streamed CSV reader feeds.
    public mutating func observe(trimmed: UnsafeBufferPointer<UInt8>, scanned: CSVNumber.Scanned? = nil) {
        guard !trimmed.isEmpty else { return }
        sawValue = true
        if allDates, CSVTime.milliseconds(bytes: trimmed) == nil { allDates = false }
        guard allNumbers else { return }
        let number = scanned ?? CSVNumber.scan(trimmed)
        switch number.strictKind {
        case .integer?:
            if let value = number.integer {
                if value < Int64(Int32.min) || value > Int64(Int32.max) { fitsInt32 = false }
            } else {
                allIntegers = false
                if number.double == nil { allNumbers = false }
            }
        case .decimal?:
            allIntegers = false
            if number.double == nil { allNumbers = false }
        case nil:
            allNumbers = false
            allIntegers = false
        }
    }

    /// Folds in what `other` observed (other rows of the same column): the
    /// type is then the one a single pass over both would give.
    public mutating func merge(_ other: CSVColumnTypeInference) {
        sawValue = sawValue || other.sawValue
        allIntegers = allIntegers && other.allIntegers
        allNumbers = allNumbers && other.allNumbers
        fitsInt32 = fitsInt32 && other.fitsInt32
        allDates = allDates && other.allDates
    }

    /// True when no further value can change ``fieldType`` (a text column).
    public var isSettled: Bool { sawValue && !allNumbers && !allDates }
}
