extension JSONWriter {
    /// Appends the instant as a quoted ISO-8601 / RFC 3339 UTC timestamp with
    /// milliseconds, e.g. `"2026-11-21T08:11:00.123Z"` — the same text as
    /// Foundation's ISO8601DateFormatter with `.withInternetDateTime,
    /// .withFractionalSeconds` for years 1583…9999. The calendar is proleptic
    /// Gregorian (Foundation switches to Julian before 1582-10-15). Years
    /// outside 0…9999 use the ISO-8601 expanded form: a sign and at least four
    /// digits (`"-0001-…"`, `"+10000-…"`).
    public mutating func appendISO8601(milliseconds: Int64) {
        let t = UTCDateTime(epochMilliseconds: milliseconds)
        buffer.append(ASCII.quote)
        if t.year < 0 {
            buffer.append(ASCII.minus)
        } else if t.year > 9999 {
            buffer.append(ASCII.plus)
        }
        let yearMagnitude = t.year.magnitude
        if yearMagnitude < 1000 {
            // Zero-pad to four digits.
            appendPadded(Int(yearMagnitude), width: 4)
        } else {
            appendInt(Int64(yearMagnitude))
        }
        buffer.append(ASCII.minus)
        appendPadded(t.month, width: 2)
        buffer.append(ASCII.minus)
        appendPadded(t.day, width: 2)
        buffer.append(0x54)  // T
        appendPadded(t.hour, width: 2)
        buffer.append(ASCII.colon)
        appendPadded(t.minute, width: 2)
        buffer.append(ASCII.colon)
        appendPadded(t.second, width: 2)
        buffer.append(ASCII.dot)
        appendPadded(t.millisecond, width: 3)
        buffer.append(0x5A)  // Z
        buffer.append(ASCII.quote)
    }

    /// Appends non-negative `value` zero-padded to `width` digits (value < 10^width).
    private mutating func appendPadded(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.append(ASCII.zero &+ UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
