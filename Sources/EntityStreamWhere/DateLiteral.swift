import EntityStreamModel
/// Parsing and validation of `date '…'` / `timestamp '…'` literal text into
/// UTC epoch milliseconds, with a hand-written proleptic Gregorian
/// civil-date → day-count conversion (no Foundation).
///
/// Accepted forms (for both `date` and `timestamp`; all times are UTC):
/// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD HH:MM:SS.f…` with 1–9
/// fraction digits (truncated to milliseconds). Years 0001–9999; months,
/// days (including leap years), hours 00–23, minutes and seconds 00–59 are
/// validated. A failure is a ``DateLiteral/Failure`` whose `offset` is the
/// 0-based scalar offset inside the literal text of the offending part.
enum DateLiteral {
    struct Failure: Error, Sendable, Hashable {
        var offset: Int
        package var message: String
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                             "August", "September", "October", "November", "December"]

    /// Parses `text` (the literal's content, without quotes) into epoch milliseconds.
    static func milliseconds(from text: String) throws(Failure) -> Int64 {
        let s = Array(text.unicodeScalars)
        let expected = "expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"
        var i = 0

        func digits(_ count: Int) throws(Failure) -> Int {
            var value = 0
            for k in 0..<count {
                guard i + k < s.count, WhereLexer.isDigit(s[i + k]) else {
                    throw Failure(offset: min(i + k, s.count), message: expected)
                }
                value = value * 10 + Int(s[i + k].value - 48)
            }
            i += count
            return value
        }
        func literal(_ c: Unicode.Scalar) throws(Failure) {
            guard i < s.count, s[i] == c else { throw Failure(offset: min(i, s.count), message: expected) }
            i += 1
        }

        let year = try digits(4)
        try literal("-")
        let monthOffset = i
        let month = try digits(2)
        try literal("-")
        let dayOffset = i
        let day = try digits(2)
        var hour = 0, minute = 0, second = 0, millisecond = 0
        var hourOffset = 0, minuteOffset = 0, secondOffset = 0
        if i < s.count {
            try literal(" ")
            hourOffset = i
            hour = try digits(2)
            try literal(":")
            minuteOffset = i
            minute = try digits(2)
            try literal(":")
            secondOffset = i
            second = try digits(2)
            if i < s.count {
                try literal(".")
                var fractionDigits = 0
                var scale = 100
                while i < s.count, WhereLexer.isDigit(s[i]) {
                    if fractionDigits < 3 { millisecond += Int(s[i].value - 48) * scale; scale /= 10 }
                    fractionDigits += 1
                    i += 1
                }
                guard fractionDigits >= 1, fractionDigits <= 9 else {
                    throw Failure(offset: min(i, s.count), message: expected)
                }
            }
            guard i == s.count else { throw Failure(offset: i, message: expected) }
        }

        guard year >= 1 else { throw Failure(offset: 0, message: "year 0000 is out of range (0001–9999)") }
        guard (1...12).contains(month) else {
            throw Failure(offset: monthOffset, message: "month \(month) is out of range (01–12)")
        }
        let monthLength = CivilDate.daysInMonth(year: year, month: month)
        guard day >= 1 && day <= monthLength else {
            throw Failure(offset: dayOffset, message:
                "day \(day) is out of range (\(monthNames[month - 1]) \(year) has \(monthLength) days)")
        }
        guard hour <= 23 else { throw Failure(offset: hourOffset, message: "hour \(hour) is out of range (00–23)") }
        guard minute <= 59 else { throw Failure(offset: minuteOffset, message: "minute \(minute) is out of range (00–59)") }
        guard second <= 59 else { throw Failure(offset: secondOffset, message: "second \(second) is out of range (00–59)") }

        let days = Int64(CivilDate.daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1000 + Int64(millisecond)
    }
}
