/// Infers an Esri field type from the values a JSON file gives a field that
/// it does not declare (Esri feature lines, GeoJSON properties), and
/// converts values to the type chosen.
///
/// Nulls are ignored. The type is: `smallInteger` when every value is a
/// boolean (stored 1/0: Esri has no boolean type); `date` when every value
/// is a date, or every value is a date text (``CSVTime/milliseconds(text:)``);
/// `integer` when every value is an integer within 32 bits, `bigInteger`
/// within 64; `double` when every value is a number; else `string` (also
/// when there is no value at all). A value type; one pass with ``observe(_:)``.
struct AttributeTypeInference: Sendable {
    private var sawValue = false
    private var allBooleans = true
    private var allDates = true
    private var allDateTexts = true
    private var allIntegers = true
    private var fitsInt32 = true
    private var allNumbers = true

    mutating func observe(_ value: AttributeValue) {
        switch value {
        case .null:
            return
        case .bool:
            allDates = false; allDateTexts = false; allIntegers = false; allNumbers = false
        case .int(let i):
            allBooleans = false; allDates = false; allDateTexts = false
            if i < Int64(Int32.min) || i > Int64(Int32.max) { fitsInt32 = false }
        case .double:
            allBooleans = false; allDates = false; allDateTexts = false; allIntegers = false
        case .date:
            allBooleans = false; allDateTexts = false; allIntegers = false; allNumbers = false
        case .string(let text):
            allBooleans = false; allDates = false; allIntegers = false; allNumbers = false
            if allDateTexts, CSVTime.milliseconds(text: CSVNumber.trim(text)) == nil { allDateTexts = false }
        }
        sawValue = true
    }

    /// Adds what `other` observed (of values that follow these): the
    /// inference of both runs of values together.
    mutating func merge(_ other: AttributeTypeInference) {
        guard other.sawValue else { return }
        sawValue = true
        allBooleans = allBooleans && other.allBooleans
        allDates = allDates && other.allDates
        allDateTexts = allDateTexts && other.allDateTexts
        allIntegers = allIntegers && other.allIntegers
        fitsInt32 = fitsInt32 && other.fitsInt32
        allNumbers = allNumbers && other.allNumbers
    }

    var fieldType: FieldType {
        guard sawValue else { return .string }
        if allBooleans { return .smallInteger }
        if allDates || allDateTexts { return .date }
        if allIntegers { return fitsInt32 ? .integer : .bigInteger }
        if allNumbers { return .double }
        return .string
    }

    /// `value` as a field of `type` holds it: booleans as 1/0 in integer
    /// fields, integers as doubles in float fields, epoch milliseconds and
    /// date texts as dates in date fields, anything as its text in string
    /// fields. Nil when the value cannot be one of that type (a text in a
    /// number field, a non-date in a date field).
    static func convert(_ value: AttributeValue, to type: FieldType) -> AttributeValue? {
        switch (value, type) {
        case (.null, _): return .null
        case (.date, .date): return value
        case (.int(let ms), .date): return .date(milliseconds: ms)
        case (.double(let d), .date):
            guard d.isFinite, d == d.rounded(), let ms = Int64(exactly: d) else { return nil }
            return .date(milliseconds: ms)
        case (.string(let text), .date):
            return CSVTime.milliseconds(text: CSVNumber.trim(text)).map { .date(milliseconds: $0) }
        case (_, .date): return nil
        case (.int, _) where type.isInteger: return value
        case (.bool(let b), _) where type.isInteger: return .int(b ? 1 : 0)
        case (.double(let d), _) where type.isInteger:
            guard d.isFinite, d == d.rounded(), let i = Int64(exactly: d) else { return nil }
            return .int(i)
        case (_, _) where type.isInteger: return nil
        case (.int(let i), _) where type.isFloatingPoint: return .double(Double(i))
        case (.double, _) where type.isFloatingPoint: return value
        case (_, _) where type.isFloatingPoint: return nil
        case (.string, _): return value
        case (.int(let i), _): return .string(String(i))
        case (.double(let d), _): return .string(String(d))
        case (.bool(let b), _): return .string(b ? "true" : "false")
        case (.date, _): return .string(String(value.displayText.dropFirst().dropLast()))
        }
    }
}
