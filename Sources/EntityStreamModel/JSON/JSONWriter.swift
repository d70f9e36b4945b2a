/// Appends compact JSON text (UTF-8) into a reusable byte buffer.
///
/// The writer does not track structure: callers emit `{`, `,`, `:` etc. with
/// ``appendRaw(_:)-(StaticString)`` and values with the typed appenders; the
/// value appenders always produce valid JSON tokens. Strings are escaped per
/// RFC 8259 (`"` `\` and controls below U+0020; `/` and non-ASCII are not
/// escaped). Doubles use the shortest form that round-trips, with a `.0` kept
/// on integral values (`5.0`) so a written double reads back as a double;
/// non-finite doubles are written as `null`. ``removeAll()`` keeps capacity,
/// so one writer can serve a whole stream without reallocating. A value type;
/// `Sendable`; not shared between threads while mutating.
public struct JSONWriter: Sendable {
    /// The text written so far (a copy; see ``withUnsafeBytes(_:)`` to avoid it).
    public var bytes: [UInt8] { buffer.array }
    /// Number of bytes written so far.
    public var count: Int { buffer.count }
    /// Bytes the buffer holds before it must grow.
    public var capacity: Int { buffer.capacity }
    var buffer: ByteBuffer

    public init(capacity: Int = 4096) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func removeAll() {
        buffer.removeAll()
    }

    /// Calls `body` with the text written so far, without copying it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes(body)
    }

    /// Appends `s` verbatim (the caller guarantees it is valid in context).
    public mutating func appendRaw(_ s: StaticString) {
        if s.hasPointerRepresentation {
            buffer.append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        } else {
            s.withUTF8Buffer { buffer.append($0) }
        }
    }

    /// Appends one byte verbatim.
    @inline(__always)
    public mutating func appendRaw(_ byte: UInt8) {
        buffer.append(byte)
    }

    /// Appends bytes that are already valid JSON text, verbatim.
    public mutating func appendRaw(_ raw: [UInt8]) {
        buffer.append(raw)
    }

    /// Appends bytes that are already valid JSON text, verbatim.
    public mutating func appendRaw(_ raw: UnsafeBufferPointer<UInt8>) {
        buffer.append(raw)
    }

    /// Appends bytes that are already valid JSON text, verbatim.
    public mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        buffer.append(raw.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends `s` as a quoted, escaped JSON string.
    public mutating func appendString(_ s: String) {
        var text = s   // withUTF8 is free for native strings; it makes others contiguous once.
        text.withUTF8 { appendString(utf8: $0) }
    }

    /// Appends `utf8` as a quoted, escaped JSON string. The bytes must be
    /// valid UTF-8 (they are copied as they are, apart from escaping).
    public mutating func appendString(utf8: UnsafeBufferPointer<UInt8>) {
        buffer.append(ASCII.quote)
        guard let base = utf8.baseAddress else {
            buffer.append(ASCII.quote)
            return
        }
        var runStart = 0
        var i = 0
        let count = utf8.count
        while i < count {
            // Skip 8 bytes at a time while none needs escaping.
            while i + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let needsEscape = JSONWriter.escapeMask(word)
                if needsEscape == 0 {
                    i += 8
                } else {
                    i += needsEscape.trailingZeroBitCount >> 3
                    break
                }
            }
            guard i < count else { break }
            let b = base[i]
            guard b < ASCII.space || b == ASCII.quote || b == ASCII.backslash else {
                i += 1
                continue
            }
            buffer.append(UnsafeBufferPointer(start: base + runStart, count: i - runStart))
            appendEscape(for: b)
            i += 1
            runStart = i
        }
        buffer.append(UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        buffer.append(ASCII.quote)
    }

    /// High bit set in (at least) the lowest lane holding `"`, `\` or a control
    /// character; zero when no lane does (non-ASCII bytes are not flagged).
    @inline(__always)
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(ASCII.quote))
        let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl) & highs
    }

    private mutating func appendEscape(for b: UInt8) {
        buffer.append(ASCII.backslash)
        switch b {
        case ASCII.quote: buffer.append(ASCII.quote)
        case ASCII.backslash: buffer.append(ASCII.backslash)
        case 0x08: buffer.append(ASCII.b)
        case 0x0C: buffer.append(ASCII.f)
        case ASCII.newline: buffer.append(ASCII.n)
        case ASCII.carriageReturn: buffer.append(ASCII.r)
        case ASCII.tab: buffer.append(ASCII.t)
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            buffer.append(ASCII.u)
            buffer.append(ASCII.zero)
            buffer.append(ASCII.zero)
            buffer.append(hexDigits.utf8Start[Int(b >> 4)])
            buffer.append(hexDigits.utf8Start[Int(b & 0xF)])
        }
    }

    /// Appends `d` in the shortest form that parses back to exactly `d`
    /// (Swift's `description`, which is valid JSON for finite values:
    /// `5.0`, `-0.0`, `0.1`, `1e-05`, `1.7976931348623157e+308`); `null` for
    /// infinities and NaN, which JSON cannot express.
    public mutating func appendDouble(_ d: Double) {
        guard d.isFinite else {
            appendNull()
            return
        }
        if appendShortDecimal(d) { return }
        var text = d.description
        text.withUTF8 { buffer.append($0) }
    }

    /// Fast path for the common case of a value with at most six decimals
    /// and a magnitude in [0.001, 1e9) (coordinates, speeds, headings): finds
    /// the fewest fraction digits `k` for which `m / 10^k`, `m` an integer,
    /// is exactly `d` — the same text `description` gives, without its
    /// general algorithm. Returns false (writing nothing) otherwise.
    @inline(__always)
    private mutating func appendShortDecimal(_ d: Double) -> Bool {
        let magnitude = d.magnitude
        guard magnitude >= 1e-3 && magnitude < 1e9 else { return false }
        var scale = 1.0
        var fractionDigits = 0
        while fractionDigits <= 6 {
            let scaled = magnitude * scale
            let integral = scaled.rounded(.toNearestOrEven)
            if integral == scaled && integral / scale == magnitude {
                var digits = UInt64(integral)
                // A product rounded off an integer at k digits shows up at k+1
                // as a trailing zero: strip those to get the shortest form.
                while fractionDigits > 0 && digits % 10 == 0 {
                    digits /= 10
                    fractionDigits -= 1
                }
                var power: UInt64 = 1
                for _ in 0..<fractionDigits { power &*= 10 }
                if d.sign == .minus { buffer.append(ASCII.minus) }
                appendInt(Int64(digits / power))
                buffer.append(ASCII.dot)
                if fractionDigits == 0 {
                    buffer.append(ASCII.zero)
                } else {
                    var fraction = digits % power
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { digits in
                        for position in stride(from: fractionDigits - 1, through: 0, by: -1) {
                            digits[position] = ASCII.zero &+ UInt8(truncatingIfNeeded: fraction % 10)
                            fraction /= 10
                        }
                        buffer.append(UnsafeBufferPointer(rebasing: digits[0..<fractionDigits]))
                    }
                }
                return true
            }
            scale *= 10
            fractionDigits += 1
        }
        return false
    }

    /// Appends `i` in decimal.
    public mutating func appendInt(_ i: Int64) {
        buffer.appendDecimal(i)
    }

    /// Appends `true` or `false`.
    public mutating func appendBool(_ b: Bool) {
        if b { appendRaw("true") } else { appendRaw("false") }
    }

    /// Appends `null`.
    public mutating func appendNull() {
        appendRaw("null")
    }

    /// Appends `"key":` (key escaped like any string).
    public mutating func appendKey(_ key: String) {
        appendString(key)
        buffer.append(ASCII.colon)
    }

    /// Appends any JSON value (compact, members in order).
    public mutating func append(_ value: JSONValue) {
        switch value {
        case .null: appendNull()
        case .bool(let b): appendBool(b)
        case .int(let i): appendInt(i)
        case .double(let d): appendDouble(d)
        case .string(let s): appendString(s)
        case .array(let elements):
            buffer.append(ASCII.openBracket)
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(ASCII.comma) }
                append(element)
            }
            buffer.append(ASCII.closeBracket)
        case .object(let object):
            buffer.append(ASCII.openBrace)
            for (index, member) in object.members.enumerated() {
                if index > 0 { buffer.append(ASCII.comma) }
                appendKey(member.key)
                append(member.value)
            }
            buffer.append(ASCII.closeBrace)
        }
    }

    /// Appends an attribute value; a date is written as its epoch-milliseconds number.
    public mutating func append(_ value: AttributeValue) {
        switch value {
        case .null: appendNull()
        case .bool(let b): appendBool(b)
        case .int(let i): appendInt(i)
        case .double(let d): appendDouble(d)
        case .string(let s): appendString(s)
        case .date(let milliseconds): appendInt(milliseconds)
        }
    }
}
