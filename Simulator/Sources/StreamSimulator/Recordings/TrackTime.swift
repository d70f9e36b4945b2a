import EntityStreamCore

/// Parses the times a track recording carries into epoch milliseconds (UTC),
/// without Foundation.
///
/// Text forms (`T`/`t` or a space between date and time):
/// - `YYYY-MM-DDTHH:MM:SS±HH:MM` (also `±HHMM`, `±HH`, `Z`/`z`), e.g.
///   `2016-11-24T00:00:51-06:00` = 06:00:51 UTC;
/// - the same without a zone, e.g. `YYYY-MM-DD HH:MM:SS`, read as UTC;
/// - seconds optional (`HH:MM`); a fraction `.f…` (1–9 digits, truncated to
///   milliseconds; `,` also accepted as the decimal mark) after the seconds;
///   a date alone means midnight UTC.
/// Years 0001–9999; months, days (leap years included), hours 00–23,
/// minutes and seconds 00–59, offsets up to ±23:59 are validated.
///
/// Numbers are epoch times: the unit is chosen once per column by magnitude
/// (see ``EpochUnit``).
enum TrackTime {
    /// Whether a numeric time column counts seconds or milliseconds since 1970.
    ///
    /// A column is milliseconds when its largest absolute value is at least
    /// 10¹¹ (as seconds that would be after the year 5000; as milliseconds
    /// it is March 1973 onward), otherwise seconds. So current epoch seconds
    /// (~1.7·10⁹) and milliseconds (~1.7·10¹²) are told apart reliably.
    enum EpochUnit: Sendable, Hashable {
        case seconds, milliseconds

        static let threshold: Double = 1e11

        init(largestMagnitude: Double) {
            self = largestMagnitude >= Self.threshold ? .milliseconds : .seconds
        }
    }

    /// The epoch milliseconds of 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z,
    /// the range every parsed time must fall in.
    static let validRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Epoch milliseconds for a numeric time `value` in `unit` (rounded to the
    /// millisecond), or nil when it is not finite or outside ``validRange``.
    static func milliseconds(epoch value: Double, unit: EpochUnit) -> Int64? {
        let ms = (unit == .seconds ? value * 1000 : value).rounded()
        guard ms.isFinite, ms >= Double(validRange.lowerBound), ms <= Double(validRange.upperBound) else { return nil }
        return Int64(ms)
    }

    /// Epoch milliseconds for an integer epoch `value` in `unit`, exactly; nil outside ``validRange``.
    static func milliseconds(epoch value: Int64, unit: EpochUnit) -> Int64? {
        let (ms, overflow) = unit == .milliseconds ? (value, false) : value.multipliedReportingOverflow(by: 1000)
        return !overflow && validRange.contains(ms) ? ms : nil
    }

    /// Epoch milliseconds for a date/time text (see the type's contract), or nil.
    static func milliseconds(text: Substring) -> Int64? {
        var parser = Parser(bytes: Array(text.utf8))
        return parser.parse()
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func digits(_ count: Int) -> Int? {
            guard i + count <= bytes.count else { return nil }
            var value = 0
            for k in i..<(i + count) {
                let b = bytes[k]
                guard b >= 48, b <= 57 else { return nil }
                value = value * 10 + Int(b - 48)
            }
            i += count
            return value
        }

        mutating func accept(_ byte: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        var atEnd: Bool { i == bytes.count }

        mutating func parse() -> Int64? {
            guard let year = digits(4), accept(UInt8(ascii: "-")),
                  let month = digits(2), accept(UInt8(ascii: "-")),
                  let day = digits(2) else { return nil }
            guard year >= 1, (1...12).contains(month), day >= 1,
                  day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
            var seconds = Int64(CivilDate.daysFromCivil(year: year, month: month, day: day)) * 86_400
            guard !atEnd else { return seconds * 1000 }

            guard accept(UInt8(ascii: "T")) || accept(UInt8(ascii: "t")) || accept(UInt8(ascii: " ")),
                  let hour = digits(2), hour <= 23, accept(UInt8(ascii: ":")),
                  let minute = digits(2), minute <= 59 else { return nil }
            var second = 0, millisecond = 0
            if accept(UInt8(ascii: ":")) {
                guard let s = digits(2), s <= 59 else { return nil }
                second = s
                if accept(UInt8(ascii: ".")) || accept(UInt8(ascii: ",")) {
                    var count = 0, scale = 100
                    while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
                        if count < 3 { millisecond += Int(bytes[i] - 48) * scale; scale /= 10 }
                        count += 1
                        i += 1
                    }
                    guard (1...9).contains(count) else { return nil }
                }
            }
            seconds += Int64(hour * 3600 + minute * 60 + second)

            if atEnd { return seconds * 1000 + Int64(millisecond) }
            if accept(UInt8(ascii: "Z")) || accept(UInt8(ascii: "z")) {
                return atEnd ? seconds * 1000 + Int64(millisecond) : nil
            }
            let sign: Int64
            if accept(UInt8(ascii: "+")) { sign = 1 } else if accept(UInt8(ascii: "-")) { sign = -1 } else { return nil }
            guard let offsetHours = digits(2), offsetHours <= 23 else { return nil }
            var offsetMinutes = 0
            if !atEnd {
                _ = accept(UInt8(ascii: ":"))
                guard let m = digits(2), m <= 59 else { return nil }
                offsetMinutes = m
            }
            guard atEnd else { return nil }
            // Local time = UTC + offset, so UTC = local − offset.
            seconds -= sign * Int64(offsetHours * 3600 + offsetMinutes * 60)
            return seconds * 1000 + Int64(millisecond)
        }
    }
}
