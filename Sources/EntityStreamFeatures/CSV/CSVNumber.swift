/// Recognises decimal numbers in CSV text and converts them, without Foundation.
///
/// Syntax (after trimming spaces and tabs): optional sign, integer digits,
/// optional `.` and fraction digits (at least one digit overall), optional
/// exponent `e`/`E` with optional sign and digits. `nan`, `inf`, hex and
/// digit grouping are not numbers. With `allowLeadingZeros: false` (used for
/// type inference) an integer part with a leading zero such as `007` or
/// `01.5` is not a number, since such values are codes whose zeros matter;
/// `0`, `0.5` and `-0.25` are numbers. Stateless.
public enum CSVNumber {
    /// Whether a number has a fraction or exponent.
    public enum Kind: Sendable, Hashable {
        /// Digits only (with optional sign).
        case integer
        /// Has a fraction or an exponent.
        case decimal
    }

    /// Trims ASCII spaces and tabs.
    public static func trim(_ text: String) -> Substring {
        trim(Substring(text))
    }

    /// Trims ASCII spaces and tabs (byte by byte: no grapheme breaking).
    public static func trim(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while start < end {
            let before = utf8.index(before: end)
            guard utf8[before] == 0x20 || utf8[before] == 0x09 else { break }
            end = before
        }
        if start == utf8.startIndex && end == utf8.endIndex { return text }
        return Substring(utf8[start..<end])
    }

    /// The kind of number `text` is (already trimmed), or nil when it is not one.
    public static func classify(_ text: Substring, allowLeadingZeros: Bool) -> Kind? {
        var digitsBeforePoint = 0, digitsAfterPoint = 0
        var firstDigitIsZero = false
        var sawPoint = false, sawExponent = false
        var iterator = text.utf8.makeIterator()
        var byte = iterator.next()
        if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = iterator.next() }
        while let b = byte, b >= 48, b <= 57 {
            if digitsBeforePoint == 0 { firstDigitIsZero = b == 48 }
            digitsBeforePoint += 1
            byte = iterator.next()
        }
        if byte == UInt8(ascii: ".") {
            sawPoint = true
            byte = iterator.next()
            while let b = byte, b >= 48, b <= 57 {
                digitsAfterPoint += 1
                byte = iterator.next()
            }
        }
        guard digitsBeforePoint + digitsAfterPoint > 0 else { return nil }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            sawExponent = true
            byte = iterator.next()
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = iterator.next() }
            var exponentDigits = 0
            while let b = byte, b >= 48, b <= 57 {
                exponentDigits += 1
                byte = iterator.next()
            }
            guard exponentDigits > 0 else { return nil }
        }
        guard byte == nil else { return nil }
        if !allowLeadingZeros, firstDigitIsZero, digitsBeforePoint > 1 { return nil }
        return sawPoint || sawExponent ? .decimal : .integer
    }

    /// The value of `text` as a finite double, or nil when it is not a number (or overflows).
    public static func double(_ text: Substring, allowLeadingZeros: Bool = true) -> Double? {
        guard classify(text, allowLeadingZeros: allowLeadingZeros) != nil,
              let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The value of `text` as an Int64 when it is an integer that fits, else nil.
    public static func integer(_ text: Substring, allowLeadingZeros: Bool = true) -> Int64? {
        guard classify(text, allowLeadingZeros: allowLeadingZeros) == .integer else { return nil }
        return Int64(text)
    }
}
