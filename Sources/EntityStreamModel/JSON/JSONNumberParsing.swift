/// A JSON number as the reader delivers it: an integer token (no fraction, no
/// exponent) that fits in Int64 is `.int`; every other number is `.double`,
/// correctly rounded to nearest-even (overflow gives ±infinity, underflow ±0).
enum JSONNumber: Equatable {
    case int(Int64)
    case double(Double)

    var doubleValue: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        }
    }
}

extension JSONScanner {
    /// Parses the number at `position` (which holds `-` or a digit) per the
    /// RFC 8259 grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// Up to 19 significant digits are accumulated exactly; when the mantissa
    /// fits in 53 bits and the decimal exponent is within ±22 the result is
    /// exact-times-exact (Clinger's fast path, correctly rounded). Anything
    /// else goes to the C library's correctly rounded `strtod` (through the
    /// standard library's locale-independent `Double(_:)`).
    @inline(__always)
    mutating func scanNumber() throws(JSONError) -> JSONNumber {
        let start = position
        var i = position
        let isNegative = base[i] == ASCII.minus
        if isNegative { i += 1 }

        var mantissa: UInt64 = 0
        var significantDigits = 0
        var droppedIntegerDigits = 0      // integer digits beyond the 19 kept (scale by 10 each)
        var fractionDigits = 0            // fraction digits kept or leading fraction zeros
        var droppedNonZero = false        // a non-zero digit was not kept: value is inexact

        // Integer part.
        let first = byte(at: i)
        if first == ASCII.zero {
            i += 1
            if ASCII.isDigit(byte(at: i)) { throw error("leading zeros are not allowed in numbers", at: i - 1) }
        } else if ASCII.isDigit(first) {
            while i < count, case let digit = base[i] &- ASCII.zero, digit < 10 {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                } else {
                    droppedIntegerDigits += 1
                    if digit != 0 { droppedNonZero = true }
                }
                i += 1
            }
        } else {
            position = i
            throw expected("a digit after '-'")
        }

        var isIntegerToken = true
        // Fraction.
        if byte(at: i) == ASCII.dot {
            isIntegerToken = false
            i += 1
            guard ASCII.isDigit(byte(at: i)) else {
                position = i
                throw expected("a digit after the decimal point")
            }
            while i < count, case let digit = base[i] &- ASCII.zero, digit < 10 {
                if mantissa == 0 && digit == 0 {
                    fractionDigits += 1                      // leading zero: only scales
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significantDigits += 1
                    fractionDigits += 1
                } else if digit != 0 {
                    droppedNonZero = true
                }
                i += 1
            }
        }

        // Exponent.
        var exponent = 0
        if byte(at: i) | 0x20 == ASCII.e {
            isIntegerToken = false
            i += 1
            var exponentIsNegative = false
            let sign = byte(at: i)
            if sign == ASCII.minus || sign == ASCII.plus {
                exponentIsNegative = sign == ASCII.minus
                i += 1
            }
            guard ASCII.isDigit(byte(at: i)) else {
                position = i
                throw expected("a digit in the exponent")
            }
            while i < count, case let digit = base[i] &- ASCII.zero, digit < 10 {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(digit) }   // saturate; strtod sees the text
                i += 1
            }
            if exponentIsNegative { exponent = -exponent }
        }
        position = i

        if isIntegerToken && droppedIntegerDigits == 0 {
            if isNegative {
                if mantissa <= UInt64(Int64.max) { return .int(-Int64(mantissa)) }
                if mantissa == UInt64(Int64.max) + 1 { return .int(Int64.min) }
            } else if mantissa <= UInt64(Int64.max) {
                return .int(Int64(mantissa))
            }
            // Beyond Int64: a double.
        }
        if mantissa == 0 { return .double(isNegative ? -0.0 : 0.0) }

        let decimalExponent = exponent + droppedIntegerDigits - fractionDigits
        if !droppedNonZero, mantissa <= 1 << 53, decimalExponent >= -22, decimalExponent <= 22 {
            var value = Double(mantissa)
            if decimalExponent < 0 {
                value /= JSONScanner.exactPowersOfTen[-decimalExponent]
            } else {
                value *= JSONScanner.exactPowersOfTen[decimalExponent]
            }
            return .double(isNegative ? -value : value)
        }
        return .double(slowPathDouble(from: start, to: i))
    }

    /// 10^0 … 10^22: every one is exactly representable as a Double.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Correctly rounded conversion of an already validated number token
    /// (the standard library calls the C library's `strtod_l` in the C locale).
    @inline(never)
    func slowPathDouble(from start: Int, to end: Int) -> Double {
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
        // A validated JSON number is always accepted by Double(_:); NaN cannot occur.
        return Double(text) ?? .nan
    }

    /// Checks the grammar of the number at `position` without computing its
    /// value (used by validation and skipping). Same errors as ``scanNumber()``.
    @inline(__always)
    mutating func skipNumber() throws(JSONError) {
        var i = position
        if base[i] == ASCII.minus { i += 1 }
        let first = byte(at: i)
        if first == ASCII.zero {
            i += 1
            if ASCII.isDigit(byte(at: i)) { throw error("leading zeros are not allowed in numbers", at: i - 1) }
        } else if ASCII.isDigit(first) {
            i += 1
            while ASCII.isDigit(byte(at: i)) { i += 1 }
        } else {
            position = i
            throw expected("a digit after '-'")
        }
        if byte(at: i) == ASCII.dot {
            i += 1
            guard ASCII.isDigit(byte(at: i)) else {
                position = i
                throw expected("a digit after the decimal point")
            }
            while ASCII.isDigit(byte(at: i)) { i += 1 }
        }
        if byte(at: i) | 0x20 == ASCII.e {
            i += 1
            let sign = byte(at: i)
            if sign == ASCII.minus || sign == ASCII.plus { i += 1 }
            guard ASCII.isDigit(byte(at: i)) else {
                position = i
                throw expected("a digit in the exponent")
            }
            while ASCII.isDigit(byte(at: i)) { i += 1 }
        }
        position = i
    }
}
