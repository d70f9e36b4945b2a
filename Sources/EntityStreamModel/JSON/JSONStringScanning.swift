/// The content bytes of one JSON string literal, between its quotes, as found
/// in the input. `hasEscapes` says whether decoding must translate `\` escapes;
/// without escapes the bytes are the string's UTF-8 as they stand.
struct JSONStringToken {
    var start: Int
    var end: Int
    var hasEscapes: Bool

    var byteCount: Int { end - start }
}

extension JSONScanner {
    // MARK: Scanning (validation)

    /// Scans a string literal; `position` must be at its opening quote. Checks
    /// the full RFC 8259 string grammar: every escape (including that `\uD800`–
    /// `\uDBFF` is followed by a `\uDC00`–`\uDFFF` escape, and that no low
    /// surrogate escape stands alone), no raw control characters, and well-formed
    /// UTF-8 (no overlong forms, no encoded surrogates, nothing above U+10FFFF).
    /// Leaves `position` after the closing quote.
    @inline(__always)
    mutating func scanString() throws(JSONError) -> JSONStringToken {
        let start = position + 1
        var i = start
        var hasEscapes = false
        while true {
            // Fast path: 8 bytes at a time while none is special.
            while i + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let special = JSONScanner.specialByteMask(word)
                if special == 0 {
                    i += 8
                } else {
                    i += special.trailingZeroBitCount >> 3
                    break
                }
            }
            guard i < count else {
                throw error("unterminated string", at: start - 1, kind: .endedEarly)
            }
            let b = base[i]
            if b == ASCII.quote {
                position = i + 1
                return JSONStringToken(start: start, end: i, hasEscapes: hasEscapes)
            } else if b == ASCII.backslash {
                hasEscapes = true
                guard i + 1 < count else { throw error("unterminated string", at: start - 1, kind: .endedEarly) }
                i = try scanEscape(at: i)
            } else if b < ASCII.space {
                throw error("unescaped control character U+00\(JSONScanner.hexByte(b)) in string", at: i)
            } else if b >= 0x80 {
                i = try scanUTF8Sequence(at: i)
            } else {
                i += 1
            }
        }
    }

    /// High bit set in (at least) the lowest byte lane that holds `"`, `\`, a
    /// control character (< 0x20) or a non-ASCII byte; zero when none does.
    /// Lanes above the first flagged one may be false positives (borrows), so
    /// only the lowest flag is meaningful.
    @inline(__always)
    static func specialByteMask(_ word: UInt64) -> UInt64 {
        JSONWriter.escapeMask(word) | (word & 0x8080_8080_8080_8080)
    }

    /// Validates the escape whose backslash is at `index`; returns the index after it.
    @inline(never)
    mutating func scanEscape(at index: Int) throws(JSONError) -> Int {
        let escaped = byte(at: index + 1)
        switch escaped {
        case ASCII.quote, ASCII.backslash, ASCII.slash, ASCII.b, ASCII.f, ASCII.n, ASCII.r, ASCII.t:
            return index + 2
        case ASCII.u:
            let unit = try hexEscapeValue(at: index)
            if unit & 0xFC00 == 0xD800 {
                guard byte(at: index + 6) == ASCII.backslash, byte(at: index + 7) == ASCII.u else {
                    throw error("unpaired high surrogate escape (expected a \\uDC00-\\uDFFF escape to follow)", at: index)
                }
                let low = try hexEscapeValue(at: index + 6)
                guard low & 0xFC00 == 0xDC00 else {
                    throw error("unpaired high surrogate escape (expected a \\uDC00-\\uDFFF escape to follow)", at: index)
                }
                return index + 12
            }
            if unit & 0xFC00 == 0xDC00 {
                throw error("unpaired low surrogate escape", at: index)
            }
            return index + 6
        default:
            throw error("invalid escape sequence in string", at: index)
        }
    }

    /// The code unit of the `\uXXXX` escape whose backslash is at `index`.
    @inline(__always)
    func hexEscapeValue(at index: Int) throws(JSONError) -> UInt32 {
        guard index + 6 <= count else {
            throw error("unterminated \\u escape (expected 4 hex digits)", at: index, kind: .endedEarly)
        }
        var value: UInt32 = 0
        for k in 2..<6 {
            guard let digit = JSONScanner.hexDigitValue(base[index + k]) else {
                throw error("invalid \\u escape (expected 4 hex digits)", at: index)
            }
            value = value << 4 | digit
        }
        return value
    }

    @inline(__always)
    static func hexDigitValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: return UInt32(b &- 0x30)
        case 0x41...0x46: return UInt32(b &- 0x41 &+ 10)
        case 0x61...0x66: return UInt32(b &- 0x61 &+ 10)
        default: return nil
        }
    }

    static func hexByte(_ b: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `index`
    /// (Unicode Table 3-7); returns the index after it.
    @inline(never)
    func scanUTF8Sequence(at index: Int) throws(JSONError) -> Int {
        let lead = base[index]
        var length = 0
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: throw error("invalid UTF-8 byte sequence in string", at: index)
        }
        let second = byte(at: index + 1)
        guard second >= secondLow, second <= secondHigh else {
            throw error("invalid UTF-8 byte sequence in string", at: index)
        }
        for k in 2..<length where byte(at: index + k) & 0xC0 != 0x80 {
            throw error("invalid UTF-8 byte sequence in string", at: index)
        }
        return index + length
    }

    // MARK: Decoding (on scanned, valid tokens)

    /// The Swift String for a scanned token.
    @inline(__always)
    func decodeString(_ token: JSONStringToken) -> String {
        if !token.hasEscapes {
            return String(decoding: UnsafeBufferPointer(start: base + token.start, count: token.byteCount), as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: token.byteCount) { destination in
            decodeEscapedBytes(token, into: destination)
        }
    }

    /// Calls `body` with the token's decoded UTF-8 bytes: the input bytes
    /// themselves when there are no escapes, else a temporary decoded copy.
    @inline(__always)
    func withDecodedBytes<R>(_ token: JSONStringToken, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !token.hasEscapes {
            return body(UnsafeBufferPointer(start: base + token.start, count: token.byteCount))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: token.byteCount) { buffer in
            let length = decodeEscapedBytes(token, into: buffer)
            return body(UnsafeBufferPointer(rebasing: buffer[..<length]))
        }
    }

    /// Writes the decoded UTF-8 of a scanned token (never longer than the
    /// token) into `destination`; returns the decoded length.
    func decodeEscapedBytes(_ token: JSONStringToken, into destination: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var out = 0
        var i = token.start
        // The token was validated by scanString, and every escape shrinks, so
        // `out <= i - token.start` always holds; the guards below are defensive.
        while i < token.end, out < destination.count {
            let b = base[i]
            guard b == ASCII.backslash else {
                destination[out] = b
                out += 1
                i += 1
                continue
            }
            let escaped = byte(at: i + 1)
            var scalar: UInt32
            switch escaped {
            case ASCII.b: scalar = 0x08
            case ASCII.f: scalar = 0x0C
            case ASCII.n: scalar = 0x0A
            case ASCII.r: scalar = 0x0D
            case ASCII.t: scalar = 0x09
            case ASCII.u:
                scalar = hexValueUnchecked(at: i + 2)
                if scalar & 0xFC00 == 0xD800 {
                    let low = hexValueUnchecked(at: i + 8)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low & 0x3FF)
                    i += 6
                }
                i += 4
            default: scalar = UInt32(escaped)   // " \ /
            }
            i += 2
            out += JSONScanner.encodeUTF8(scalar, into: destination, at: out)
        }
        return out
    }

    /// The value of 4 hex digits at `index` of an already validated escape.
    @inline(__always)
    private func hexValueUnchecked(at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 4 | (JSONScanner.hexDigitValue(byte(at: index + k)) ?? 0) }
        return value
    }

    /// Encodes `scalar` as UTF-8 at `offset`; returns the number of bytes written
    /// (0 if it would not fit).
    @inline(__always)
    static func encodeUTF8(_ scalar: UInt32, into destination: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let room = destination.count - offset
        switch scalar {
        case 0..<0x80:
            guard room >= 1 else { return 0 }
            destination[offset] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            guard room >= 2 else { return 0 }
            destination[offset] = UInt8(0xC0 | scalar >> 6)
            destination[offset + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            guard room >= 3 else { return 0 }
            destination[offset] = UInt8(0xE0 | scalar >> 12)
            destination[offset + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            destination[offset + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            guard room >= 4 else { return 0 }
            destination[offset] = UInt8(0xF0 | scalar >> 18)
            destination[offset + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            destination[offset + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            destination[offset + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
