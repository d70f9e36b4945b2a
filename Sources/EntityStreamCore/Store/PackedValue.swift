import EntityStreamModel
import EntityStreamWhere
/// One attribute value in 8 bytes, for compact observation records.
///
/// Doubles are stored as their bit patterns (any NaN becomes the canonical
/// quiet NaN); everything else lives in the negative-NaN space, tagged by
/// the top 16 bits: null, bool, 48-bit integers, dates (48-bit epoch ms),
/// then the interned kinds, which hold a ``StringTable`` id: strings, and
/// integers and dates too wide for 48 bits (interned as their decimal
/// text). Every value unpacks to what was packed, type included.
enum PackedValue {
    private static let canonicalNaN: UInt64 = 0x7FF8_0000_0000_0000
    private static let tagShift: UInt64 = 48
    private static let payloadMask: UInt64 = (1 << 48) - 1
    static let nullTag: UInt64 = 0xFFF9
    static let boolTag: UInt64 = 0xFFFA
    static let intTag: UInt64 = 0xFFFB
    static let dateTag: UInt64 = 0xFFFC
    // The interned kinds come last, so one comparison recognises them.
    static let stringTag: UInt64 = 0xFFFD
    static let wideIntTag: UInt64 = 0xFFFE
    static let wideDateTag: UInt64 = 0xFFFF

    static let null: UInt64 = nullTag << tagShift

    @inline(__always)
    static func tag(_ word: UInt64) -> UInt64 { word >> tagShift }

    /// True when `word` holds a ``StringTable`` id (a string, or a wide integer or date).
    @inline(__always)
    static func isInterned(_ word: UInt64) -> Bool {
        word >> tagShift >= stringTag
    }

    @inline(__always)
    static func stringID(_ word: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: word & payloadMask) }

    @inline(__always)
    static func double(_ value: Double) -> UInt64 {
        value.isNaN ? canonicalNaN : value.bitPattern
    }

    /// Packs `value`, interning strings in `strings`.
    static func pack(_ value: AttributeValue, strings: inout StringTable) -> UInt64 {
        switch value {
        case .null: return null
        case .bool(let flag): return boolTag << tagShift | (flag ? 1 : 0)
        case .double(let number): return double(number)
        case .int(let number):
            if let packed = signed48(number, tag: intTag) { return packed }
            return wideIntTag << tagShift | UInt64(strings.retain(String(number)))
        case .date(let milliseconds):
            if let packed = signed48(milliseconds, tag: dateTag) { return packed }
            return wideDateTag << tagShift | UInt64(strings.retain(String(milliseconds)))
        case .string(let text):
            return stringTag << tagShift | UInt64(strings.retain(text))
        }
    }

    /// The value `word` holds.
    static func unpack(_ word: UInt64, strings: StringTable) -> AttributeValue {
        switch word >> tagShift {
        case nullTag: return .null
        case boolTag: return .bool(word & 1 == 1)
        case intTag: return .int(signExtend(word))
        case dateTag: return .date(milliseconds: signExtend(word))
        case stringTag: return .string(strings.string(stringID(word)))
        case wideIntTag: return .int(Int64(strings.string(stringID(word))) ?? 0)
        case wideDateTag: return .date(milliseconds: Int64(strings.string(stringID(word))) ?? 0)
        default: return .double(Double(bitPattern: word))
        }
    }

    /// ``unpack(_:strings:)`` reading interned strings from the table's storage.
    static func unpack(_ word: UInt64, strings: UnsafeBufferPointer<String>) -> AttributeValue {
        switch word >> tagShift {
        case nullTag: return .null
        case boolTag: return .bool(word & 1 == 1)
        case intTag: return .int(signExtend(word))
        case dateTag: return .date(milliseconds: signExtend(word))
        case stringTag: return .string(strings[Int(stringID(word))])
        case wideIntTag: return .int(Int64(strings[Int(stringID(word))]) ?? 0)
        case wideDateTag: return .date(milliseconds: Int64(strings[Int(stringID(word))]) ?? 0)
        default: return .double(Double(bitPattern: word))
        }
    }

    /// `word` with the one value that has two encodings, -0.0, mapped onto
    /// 0.0: equal identities mean equal values within one string table.
    @inline(__always)
    static func identity(_ word: UInt64) -> UInt64 {
        word == (-0.0 as Double).bitPattern ? 0 : word
    }

    /// The instant a time attribute holds, epoch ms: dates and integers as
    /// they are, finite doubles truncated; nil for null, strings, booleans
    /// and values beyond ``Instant/range``.
    static func milliseconds(_ word: UInt64, strings: UnsafeBufferPointer<String>) -> Int64? {
        switch word >> tagShift {
        case intTag, dateTag:
            let value = signExtend(word)
            return Instant.range.contains(value) ? value : nil
        case nullTag, boolTag, stringTag: return nil
        case wideIntTag, wideDateTag:
            guard let value = Int64(strings[Int(stringID(word))]), Instant.range.contains(value) else { return nil }
            return value
        default:
            let value = Double(bitPattern: word)
            guard value.isFinite, value >= Double(Instant.range.lowerBound), value <= Double(Instant.range.upperBound) else { return nil }
            return Int64(value)
        }
    }

    /// What a word holds, for numeric comparisons without building a value.
    enum NumericView {
        case number(WhereValueOrder.Number)
        /// NULL or a string: no numeric order.
        case notNumeric
        /// A wide integer or date kept in the string table.
        case needsTable
    }

    @inline(__always)
    static func number(_ word: UInt64) -> NumericView {
        switch word >> tagShift {
        case nullTag, stringTag: return .notNumeric
        case boolTag: return .number(.int(Int64(word & 1)))
        case intTag, dateTag: return .number(.int(signExtend(word)))
        case wideIntTag, wideDateTag: return .needsTable
        default: return .number(.double(Double(bitPattern: word)))
        }
    }

    private static func signed48(_ value: Int64, tag: UInt64) -> UInt64? {
        guard value >= -(1 << 47), value < (1 << 47) else { return nil }
        return tag << tagShift | (UInt64(bitPattern: value) & payloadMask)
    }

    private static func signExtend(_ word: UInt64) -> Int64 {
        Int64(bitPattern: word << 16) >> 16
    }
}
