import EntityStreamModel
extension CSVNumber {
    /// A field's text read once as a number, the way ``classify(_:allowLeadingZeros:)``,
    /// ``integer(_:allowLeadingZeros:)`` and ``double(_:allowLeadingZeros:)``
    /// read its `String` (tests hold the two paths equal): what the streamed
    /// CSV reader uses instead of making a `String` per field.
    public struct Scanned: Sendable {
        /// The kind with leading zeros allowed, nil when the text is not a number.
        public var kind: Kind?
        /// True when the integer part has a leading zero and more digits (`007`, `01.5`).
        public var hasLeadingZero: Bool
        /// The value as an Int64, for an integer that fits; else nil.
        public var integer: Int64?
        /// The value as a finite Double for any number (correctly rounded); nil when not one or it overflows.
        public var double: Double?

        /// ``CSVNumber/classify(_:allowLeadingZeros:)`` with `allowLeadingZeros: false`.
        public var strictKind: Kind? { hasLeadingZero ? nil : kind }
    }

    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// Reads trimmed text (no spaces or tabs at either end) as a number.
    /// Values of up to 15 significant digits with a decimal exponent within
    /// ±22 are converted exactly (Clinger's fast path: one correctly rounded
    /// multiplication or division of two exact doubles); others through the
    /// standard library's parser, as ``double(_:allowLeadingZeros:)`` does.
    public static func scan(_ text: UnsafeBufferPointer<UInt8>) -> Scanned {
        var result = Scanned(kind: nil, hasLeadingZero: false, integer: nil, double: nil)
        let n = text.count
        var i = 0
        var negative = false
        if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0        // digits taken into `mantissa` (leading zeros skipped)
        var dropped = false        // a non-zero digit did not fit in `mantissa`
        var scale = 0              // power of ten to apply to `mantissa`
        var digitsBefore = 0, digitsAfter = 0
        var firstIsZero = false
        var integerMagnitude: UInt64 = 0
        var integerOverflow = false
        while i < n, text[i] >= 48, text[i] <= 57 {
            let digit = UInt64(text[i] - 48)
            if digitsBefore == 0 { firstIsZero = digit == 0 }
            digitsBefore += 1
            if !integerOverflow {
                let (times, o1) = integerMagnitude.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(digit)
                if o1 || o2 { integerOverflow = true } else { integerMagnitude = plus }
            }
            if significant > 0 || digit != 0 {
                if significant < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    significant += 1
                } else {
                    scale += 1
                    if digit != 0 { dropped = true }
                }
            }
            i += 1
        }
        var sawPoint = false
        if i < n, text[i] == UInt8(ascii: ".") {
            sawPoint = true
            i += 1
            while i < n, text[i] >= 48, text[i] <= 57 {
                let digit = UInt64(text[i] - 48)
                digitsAfter += 1
                if significant > 0 || digit != 0 {
                    if significant < 19 {
                        mantissa = mantissa &* 10 &+ digit
                        significant += 1
                        scale -= 1
                    } else if digit != 0 {
                        dropped = true
                    }
                } else {
                    scale -= 1
                }
                i += 1
            }
        }
        guard digitsBefore + digitsAfter > 0 else { return result }
        var sawExponent = false
        var exponent = 0
        if i < n, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            sawExponent = true
            i += 1
            var exponentNegative = false
            if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                exponentNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            var exponentDigits = 0
            while i < n, text[i] >= 48, text[i] <= 57 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(text[i] - 48) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return result }
            if exponentNegative { exponent = -exponent }
        }
        guard i == n else { return result }
        result.hasLeadingZero = firstIsZero && digitsBefore > 1
        let kind: Kind = sawPoint || sawExponent ? .decimal : .integer
        result.kind = kind
        if kind == .integer, !integerOverflow {
            if negative {
                if integerMagnitude <= UInt64(Int64.max) + 1 { result.integer = integerMagnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(integerMagnitude) }
            } else if integerMagnitude <= UInt64(Int64.max) {
                result.integer = Int64(integerMagnitude)
            }
        }
        let power = scale + exponent
        if !dropped, mantissa <= 1 << 53, power >= -22, power <= 22 {
            var value = Double(mantissa)
            if power >= 0 { value *= powersOfTen[power] } else { value /= powersOfTen[-power] }
            result.double = negative ? -value : value
        } else if mantissa == 0 && !dropped {
            result.double = negative ? -0.0 : 0.0
        } else if let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite {
            result.double = value
        }
        return result
    }

    /// `text` without spaces and tabs at either end (``trim(_:)-(Substring)`` on bytes).
    @inline(__always)
    public static func trim(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0, end = text.count
        while start < end, text[start] == 0x20 || text[start] == 0x09 { start += 1 }
        while end > start, text[end - 1] == 0x20 || text[end - 1] == 0x09 { end -= 1 }
        if start == 0 && end == text.count { return text }
        return UnsafeBufferPointer(rebasing: text[start..<end])
    }
}

extension CSVTime {
    /// ``milliseconds(text:)`` on trimmed bytes: the common ISO-8601 forms
    /// (`YYYY-MM-DD`, then `T` or a space and `HH:MM[:SS[.fff…]]`, then `Z`
    /// or nothing) are read here; anything else goes through the same
    /// ``Instant/parse(_:)`` as the `String` path. Tests hold both equal.
    public static func milliseconds(bytes text: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = text.count
        guard n >= 10 else { return nil }
        @inline(__always) func digit(_ i: Int) -> Int? {
            let byte = text[i]
            return byte >= 48 && byte <= 57 ? Int(byte - 48) : nil
        }
        guard let y0 = digit(0), let y1 = digit(1), let y2 = digit(2), let y3 = digit(3), text[4] == UInt8(ascii: "-") else { return nil }
        func slow() -> Int64? { try? Instant.parse(String(decoding: text, as: UTF8.self)) }
        guard let m0 = digit(5), let m1 = digit(6), text[7] == UInt8(ascii: "-"), let d0 = digit(8), let d1 = digit(9) else { return slow() }
        let year = y0 * 1000 + y1 * 100 + y2 * 10 + y3, month = m0 * 10 + m1, day = d0 * 10 + d1
        guard year >= 1, (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return slow() }
        var hour = 0, minute = 0, second = 0, millisecond = 0
        var i = 10
        if i < n {
            guard text[i] == UInt8(ascii: "T") || text[i] == UInt8(ascii: " "), i + 5 < n,
                  let h0 = digit(i + 1), let h1 = digit(i + 2), text[i + 3] == UInt8(ascii: ":"),
                  let n0 = digit(i + 4), let n1 = digit(i + 5) else { return slow() }
            hour = h0 * 10 + h1
            minute = n0 * 10 + n1
            i += 6
            if i < n, text[i] == UInt8(ascii: ":") {
                guard i + 2 < n, let s0 = digit(i + 1), let s1 = digit(i + 2) else { return slow() }
                second = s0 * 10 + s1
                i += 3
                if i < n, text[i] == UInt8(ascii: ".") {
                    i += 1
                    var count = 0
                    var scale = 100
                    while i < n, let d = digit(i) {
                        if count < 3 { millisecond += d * scale; scale /= 10 }
                        count += 1
                        i += 1
                    }
                    guard (1...9).contains(count) else { return slow() }
                }
            }
            if i < n, text[i] == UInt8(ascii: "Z") { i += 1 }
            guard i == n, hour <= 23, minute <= 59, second <= 59 else { return slow() }
        }
        let days = Int64(CivilDate.daysFromCivil(year: year, month: month, day: day))
        let ms = (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millisecond)
        return Instant.range.contains(ms) ? ms : nil
    }
}
