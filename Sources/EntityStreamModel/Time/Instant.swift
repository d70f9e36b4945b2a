/// Parsing of the instants users and services give for time extents:
/// ISO-8601 / RFC 3339 text or epoch milliseconds, into UTC epoch
/// milliseconds.
///
/// Accepted text: `YYYY-MM-DD`, then optionally `T` or a space and
/// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.f…` (1–9 fraction digits, truncated to
/// milliseconds), then optionally `Z`, `±HH:MM`, `±HHMM` or `±HH`. Without
/// an offset the time is UTC. Years 0001–9999. A whole number (optionally
/// negative) is epoch milliseconds, bounded by ``range`` so that later
/// arithmetic cannot overflow. Errors name what was wrong.
public enum Instant {
    /// Epoch milliseconds of 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z.
    public static let range: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// Parses `text` (ISO-8601 or epoch milliseconds).
    public static func parse(_ text: String) throws(InstantError) -> Int64 {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw .empty(text) }
        let bytes = Array(trimmed.utf8)
        if bytes.allSatisfy({ isDigit($0) }) || (bytes.first == UInt8(ascii: "-") && bytes.count > 1 && bytes.dropFirst().allSatisfy({ isDigit($0) })) {
            guard let value = Int64(trimmed) else { throw .epochOverflow(text) }
            return try checked(value, text: text)
        }
        return try parseISO(bytes, text: text)
    }

    /// An epoch-milliseconds number from JSON (integral, within ``range``).
    public static func milliseconds(_ value: Double, text: String) throws(InstantError) -> Int64 {
        guard value.isFinite, value == value.rounded(.towardZero),
              value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw .epochNotWhole(text)
        }
        return Int64(value)
    }

    package static func checked(_ value: Int64, text: String) throws(InstantError) -> Int64 {
        guard range.contains(value) else {
            throw .epochOutOfRange(text)
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private static func parseISO(_ s: [UInt8], text: String) throws(InstantError) -> Int64 {
        var i = 0
        func digits(_ count: Int) throws(InstantError) -> Int {
            var value = 0
            for k in 0..<count {
                guard i + k < s.count, isDigit(s[i + k]) else { throw .malformed(text) }
                value = value * 10 + Int(s[i + k] - 48)
            }
            i += count
            return value
        }
        func expect(_ c: Character) throws(InstantError) {
            guard i < s.count, s[i] == c.asciiValue! else { throw .malformed(text) }
            i += 1
        }
        let year = try digits(4)
        try expect("-")
        let month = try digits(2)
        try expect("-")
        let day = try digits(2)
        guard year >= 1 else { throw .yearZero(text) }
        guard (1...12).contains(month) else { throw .monthOutOfRange(text, month: month) }
        let monthLength = CivilDate.daysInMonth(year: year, month: month)
        guard (1...monthLength).contains(day) else {
            throw .dayOutOfRange(text, day: day, year: year, month: month, days: monthLength)
        }
        var hour = 0, minute = 0, second = 0, millisecond = 0
        var offsetMinutes = 0
        if i < s.count, s[i] == UInt8(ascii: "T") || s[i] == UInt8(ascii: "t") || s[i] == UInt8(ascii: " ") {
            i += 1
            hour = try digits(2)
            try expect(":")
            minute = try digits(2)
            if i < s.count, s[i] == UInt8(ascii: ":") {
                i += 1
                second = try digits(2)
                if i < s.count, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ",") {
                    i += 1
                    var count = 0
                    var scale = 100
                    while i < s.count, isDigit(s[i]) {
                        if count < 3 { millisecond += Int(s[i] - 48) * scale; scale /= 10 }
                        count += 1
                        i += 1
                    }
                    guard (1...9).contains(count) else { throw .malformed(text) }
                }
            }
            guard hour <= 23 else { throw .hourOutOfRange(text, hour: hour) }
            guard minute <= 59 else { throw .minuteOutOfRange(text, minute: minute) }
            guard second <= 59 else { throw .secondOutOfRange(text, second: second) }
            if i < s.count {
                if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
                    i += 1
                } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                    let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                    i += 1
                    let offsetHours = try digits(2)
                    var offsetMinute = 0
                    if i < s.count {
                        if s[i] == UInt8(ascii: ":") { i += 1 }
                        offsetMinute = try digits(2)
                    }
                    guard offsetHours <= 18, offsetMinute <= 59 else {
                        throw .offsetOutOfRange(text)
                    }
                    offsetMinutes = sign * (offsetHours * 60 + offsetMinute)
                }
            }
        }
        guard i == s.count else { throw .malformed(text) }
        let days = Int64(CivilDate.daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return try checked(seconds * 1000 + Int64(millisecond), text: text)
    }
}

/// An instant that could not be read, by what is wrong; every case carries
/// the text as given and ``description`` reads `invalid time 'TEXT': REASON`.
public enum InstantError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Empty or only spaces.
    case empty(String)
    /// Digits too many for a 64-bit number of epoch milliseconds.
    case epochOverflow(String)
    /// An epoch-milliseconds JSON number that is not whole, or outside ``Instant/range``.
    case epochNotWhole(String)
    /// Epoch milliseconds outside ``Instant/range`` (years 0001–9999).
    case epochOutOfRange(String)
    /// Not `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]` nor epoch milliseconds.
    case malformed(String)
    /// The year 0000.
    case yearZero(String)
    /// A month outside 01–12.
    case monthOutOfRange(String, month: Int)
    /// A day the month does not have (`days`: its length).
    case dayOutOfRange(String, day: Int, year: Int, month: Int, days: Int)
    /// An hour outside 00–23.
    case hourOutOfRange(String, hour: Int)
    /// A minute outside 00–59.
    case minuteOutOfRange(String, minute: Int)
    /// A second outside 00–59.
    case secondOutOfRange(String, second: Int)
    /// A UTC offset beyond ±18:00.
    case offsetOutOfRange(String)
    /// A JSON value that is neither text, a number nor null (its JSON text).
    case notAnInstantValue(String)

    /// The text as given.
    public var text: String {
        switch self {
        case .empty(let text), .epochOverflow(let text), .epochNotWhole(let text), .epochOutOfRange(let text), .malformed(let text),
             .yearZero(let text), .monthOutOfRange(let text, _), .dayOutOfRange(let text, _, _, _, _), .hourOutOfRange(let text, _),
             .minuteOutOfRange(let text, _), .secondOutOfRange(let text, _), .offsetOutOfRange(let text), .notAnInstantValue(let text):
            return text
        }
    }

    /// Why the text is not an instant.
    public var reason: String {
        let range = Instant.range
        switch self {
        case .empty: return "empty"
        case .epochOverflow: return "epoch milliseconds out of range"
        case .epochNotWhole: return "epoch milliseconds must be a whole number between \(range.lowerBound) and \(range.upperBound)"
        case .epochOutOfRange: return "epoch milliseconds must be between \(range.lowerBound) and \(range.upperBound) (years 0001–9999)"
        case .malformed: return "expected YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM] or epoch milliseconds"
        case .yearZero: return "year 0000 is out of range (0001–9999)"
        case .monthOutOfRange(_, let month): return "month \(month) is out of range (01–12)"
        case .dayOutOfRange(_, let day, let year, let month, let days):
            return "day \(day) is out of range (\(year)-\(month < 10 ? "0" : "")\(month) has \(days) days)"
        case .hourOutOfRange(_, let hour): return "hour \(hour) is out of range (00–23)"
        case .minuteOutOfRange(_, let minute): return "minute \(minute) is out of range (00–59)"
        case .secondOutOfRange(_, let second): return "second \(second) is out of range (00–59)"
        case .offsetOutOfRange: return "UTC offset out of range (−18:00…+18:00)"
        case .notAnInstantValue: return "expected ISO-8601 text, epoch milliseconds or null"
        }
    }

    public var description: String { "invalid time '\(text)': \(reason)" }
}
