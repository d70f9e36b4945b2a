import EntityStreamModel
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
///
/// It also keeps the earliest and latest instant of the values while every
/// one converts to a date (``dateBounds``): the time extent a table would
/// find in the field if it were a time field, without reading the file again.
struct AttributeTypeInference: Sendable {
    private var sawValue = false
    /// Every value so far converts to a date (``convert(_:to:)`` with `.date`);
    /// false from the start when the date range is not kept (``init(keepsDateBounds:)``).
    private(set) var convertsToDates: Bool
    /// The earliest and latest of those dates, in epoch milliseconds (nil: none yet).
    private(set) var dateBounds: (earliest: Int64, latest: Int64)?
    private var allBooleans = true
    private var allDates = true
    private var allDateTexts = true
    private var allIntegers = true
    private var fitsInt32 = true
    private var allNumbers = true

    /// `keepsDateBounds`: keep ``dateBounds`` (a streamed layer's index needs it; the type alone does not).
    init(keepsDateBounds: Bool = false) {
        convertsToDates = keepsDateBounds
    }

    mutating func observe(_ value: AttributeValue) {
        switch value {
        case .null:
            return
        case .bool:
            allDates = false; allDateTexts = false; allIntegers = false; allNumbers = false
            convertsToDates = false
        case .int(let i):
            allBooleans = false; allDates = false; allDateTexts = false
            if i < Int64(Int32.min) || i > Int64(Int32.max) { fitsInt32 = false }
            noteDate(i)
        case .double(let d):
            allBooleans = false; allDates = false; allDateTexts = false; allIntegers = false
            if convertsToDates {
                if d.isFinite, d == d.rounded(), let ms = Int64(exactly: d) { noteDate(ms) } else { convertsToDates = false }
            }
        case .date(let ms):
            allBooleans = false; allDateTexts = false; allIntegers = false; allNumbers = false
            noteDate(ms)
        case .string(let text):
            allBooleans = false; allDates = false; allIntegers = false; allNumbers = false
            if allDateTexts || convertsToDates {
                if let ms = CSVTime.milliseconds(text: CSVNumber.trim(text)) {
                    noteDate(ms)
                } else {
                    allDateTexts = false
                    convertsToDates = false
                }
            }
        }
        sawValue = true
    }

    private mutating func noteDate(_ ms: Int64) {
        guard convertsToDates else { return }
        dateBounds = (Swift.min(dateBounds?.earliest ?? ms, ms), Swift.max(dateBounds?.latest ?? ms, ms))
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
        convertsToDates = convertsToDates && other.convertsToDates
        if !convertsToDates {
            dateBounds = nil
        } else if let later = other.dateBounds {
            dateBounds = (Swift.min(dateBounds?.earliest ?? later.earliest, later.earliest), Swift.max(dateBounds?.latest ?? later.latest, later.latest))
        }
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
