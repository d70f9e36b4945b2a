/// UTC calendar fields of an epoch-milliseconds instant in the proleptic
/// Gregorian calendar (Gregorian rules extended before 1582; year 0 = 1 BC,
/// negative years before that), computed with integer arithmetic only
/// (Howard Hinnant's `civil_from_days`). Valid for every Int64 input.
struct UTCDateTime: Sendable, Hashable {
    var year: Int64
    var month: Int      // 1...12
    var day: Int        // 1...31
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int

    init(epochMilliseconds: Int64) {
        let millisecondsPerDay: Int64 = 86_400_000
        // Floor division, so instants before 1970 land on the right day.
        var days = epochMilliseconds / millisecondsPerDay
        var millisecondOfDay = epochMilliseconds % millisecondsPerDay
        if millisecondOfDay < 0 {
            millisecondOfDay += millisecondsPerDay
            days -= 1
        }
        // civil_from_days: eras of 400 years (146097 days) starting 0000-03-01.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097                                            // [0, 146096]
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365  // [0, 399]
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)            // [0, 365]
        let shiftedMonth = (5 * dayOfYear + 2) / 153                                // [0, 11], March = 0
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let ms = Int(millisecondOfDay)
        hour = ms / 3_600_000
        minute = ms / 60_000 % 60
        second = ms / 1000 % 60
        millisecond = ms % 1000
    }
}

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
