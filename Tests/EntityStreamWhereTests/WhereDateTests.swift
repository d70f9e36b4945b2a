import EntityStreamTestSupport
import Testing
import Foundation
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

@Suite("Where dates: date/timestamp literals as UTC epoch milliseconds", .bounded)
struct WhereDateTests {
    typealias F = WhereFixture

    /// Evaluates `lastupdate = <literal>` on a row whose lastupdate is `ms`.
    static func equals(_ literal: String, _ ms: Int64) throws -> Bool {
        try WhereClause("lastupdate = \(literal)", schema: F.schema)
            .matches(F.plow(["lastupdate": .date(milliseconds: ms)]))
    }

    /// Date fields compare with date and timestamp literals.
    @Test(arguments: [
        ("lastupdate > date '2024-01-01 00:00:00'", SQLTruth.true), ("lastupdate > date '2024-01-01'", .true),
        ("lastupdate < date '2024-03-01'", .false), ("lastupdate > date '2024-03-01'", .true),
        ("lastupdate = timestamp '2024-03-01 12:00:00'", .true), ("lastupdate >= TIMESTAMP '2024-03-01 12:00:00.001'", .false),
        ("lastupdate <> date '2024-03-01 12:00:00'", .false), ("date '2024-03-02' > lastupdate", .true),
        ("lastupdate IN (date '2024-03-01 12:00:00', date '2025-01-01')", .true),
        ("date '2024-01-01' < date '2024-01-02'", .true),
    ])
    func comparisons(text: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(text) == expected)
    }

    /// Known epoch values, including pre-1970 and the extremes of the year range.
    @Test(arguments: [
        ("date '1970-01-01'", Int64(0)), ("date '1970-01-01 00:00:01'", 1000),
        ("timestamp '1969-12-31 23:59:59'", -1000), ("timestamp '1969-12-31 23:59:59.999'", -1),
        ("date '2000-02-29'", 951_782_400_000), ("date '1900-01-01'", -2_208_988_800_000),
        ("date '1960-06-15 08:30:00'", -301_246_200_000), ("date '0001-01-01'", -62_135_596_800_000),
        ("timestamp '9999-12-31 23:59:59.999'", 253_402_300_799_999), ("date '2024-01-01 00:00:00'", 1_704_067_200_000),
        ("date '2024-03-01 12:00:00'", 1_709_294_400_000), ("date '2038-01-19 03:14:08'", 2_147_483_648_000),
    ])
    func knownValues(literal: String, ms: Int64) throws {
        #expect(try Self.equals(literal, ms))
        #expect(try !Self.equals(literal, ms + 1))
    }

    /// Timestamps carry milliseconds; 1–9 fraction digits are accepted and truncated to ms.
    @Test(arguments: [
        ("timestamp '2024-03-01 12:00:00.250'", Int64(250)), ("timestamp '2024-03-01 12:00:00.5'", 500),
        ("timestamp '2024-03-01 12:00:00.05'", 50), ("timestamp '2024-03-01 12:00:00.123456789'", 123),
        ("date '2024-03-01 12:00:00.999'", 999),
    ])
    func milliseconds(literal: String, extra: Int64) throws {
        #expect(try Self.equals(literal, F.march1Noon + extra))
    }

    /// Leap days: valid in leap years (incl. 2000), invalid otherwise (incl. 1900).
    @Test func leapDays() throws {
        #expect(try Self.equals("date '2024-02-29'", 1_709_164_800_000))
        #expect(try Self.equals("date '2000-02-29'", 951_782_400_000))
        #expect(F.error("lastupdate > date '2024-02-29'") == nil)
        #expect(F.error("lastupdate > date '2023-02-29'")?.message
                == "invalid date literal '2023-02-29': day 29 is out of range (February 2023 has 28 days)")
        #expect(F.error("lastupdate > date '2023-02-29'")?.position == 28)
        #expect(F.error("lastupdate > date '1900-02-29'")?.message
                == "invalid date literal '1900-02-29': day 29 is out of range (February 1900 has 28 days)")
    }

    /// Pre-1970 dates are negative milliseconds and order correctly.
    @Test func pre1970() throws {
        let row = F.plow(["lastupdate": .date(milliseconds: -301_246_200_000)])   // 1960-06-15 08:30
        #expect(try F.evaluate("lastupdate < date '1970-01-01'", row) == .true)
        #expect(try F.evaluate("lastupdate > date '1960-06-15'", row) == .true)
        #expect(try F.evaluate("lastupdate < timestamp '1960-06-15 08:30:00.001'", row) == .true)
        #expect(try F.evaluate("lastupdate BETWEEN date '1900-01-01' AND date '1969-12-31'", row) == .true)
    }

    /// Dates compare with plain numbers as epoch milliseconds, and mix in arithmetic as numbers.
    @Test(arguments: [
        ("lastupdate > 0", SQLTruth.true), ("lastupdate = 1709294400000", .true),
        ("lastupdate < 1709294400000.5", .true), ("lastupdate - 1000 < date '2024-03-01 12:00:00'", .true),
        ("lastupdate + 60000 = timestamp '2024-03-01 12:01:00'", .true), ("date '1970-01-01' = 0", .true),
        ("lastupdate IN (1709294400000)", .true),
    ])
    func datesAsNumbers(text: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(text) == expected)
    }

    /// The civil-date conversion agrees with Foundation for a spread of dates over 0001–9999.
    @Test func agreesWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SplitMix64(seed: 0xDA7E)
        for _ in 0..<400 {
            let year = Int.random(in: 1601...9999, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let hour = Int.random(in: 0...23, using: &generator)
            let minute = Int.random(in: 0...59, using: &generator)
            let second = Int.random(in: 0...59, using: &generator)
            let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            let date = try #require(calendar.date(from: components))
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
            func pad(_ v: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(v).count)) + String(v) }
            let literal = "timestamp '\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))'"
            #expect(try Self.equals(literal, ms), "\(literal) should be \(ms)")
        }
    }

    /// Every day of every month is validated against the month's length, for leap and common years.
    @Test(arguments: [2023, 2024, 1900, 2000])
    func monthLengths(year: Int) throws {
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for month in 1...12 {
            for day in 1...31 {
                let text = "lastupdate > date '\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)'"
                #expect((F.error(text) == nil) == (day <= lengths[month - 1]), "\(text)")
            }
        }
    }

    /// Invalid date/timestamp literals are errors pointing at the offending part.
    @Test(arguments: [
        ("lastupdate > date '2024-13-01'", 25, "invalid date literal '2024-13-01': month 13 is out of range (01–12)"),
        ("lastupdate > date '2024-00-10'", 25, "invalid date literal '2024-00-10': month 0 is out of range (01–12)"),
        ("lastupdate > date '2024-04-31'", 28, "invalid date literal '2024-04-31': day 31 is out of range (April 2024 has 30 days)"),
        ("lastupdate > date '2024-01-00'", 28, "invalid date literal '2024-01-00': day 0 is out of range (January 2024 has 31 days)"),
        ("lastupdate = timestamp '2024-01-01 24:00:00'", 36, "invalid timestamp literal '2024-01-01 24:00:00': hour 24 is out of range (00–23)"),
        ("lastupdate = timestamp '2024-01-01 23:60:00'", 39, "invalid timestamp literal '2024-01-01 23:60:00': minute 60 is out of range (00–59)"),
        ("lastupdate = timestamp '2024-01-01 23:59:60'", 42, "invalid timestamp literal '2024-01-01 23:59:60': second 60 is out of range (00–59)"),
        ("lastupdate > date '0000-01-01'", 20, "invalid date literal '0000-01-01': year 0000 is out of range (0001–9999)"),
        ("lastupdate > date '2024-1-01'", 26, "invalid date literal '2024-1-01': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
        ("lastupdate > date '2024-01-01T00:00:00'", 30, "invalid date literal '2024-01-01T00:00:00': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
        ("lastupdate > date '2024-01-01 12:00'", 36, "invalid date literal '2024-01-01 12:00': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
        ("lastupdate > date ''", 20, "invalid date literal '': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
        ("lastupdate > timestamp '2024-01-01 00:00:00.'", 45, "invalid timestamp literal '2024-01-01 00:00:00.': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
        ("lastupdate > date 'yesterday'", 20, "invalid date literal 'yesterday': expected 'YYYY-MM-DD', 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.fff'"),
    ])
    func invalidLiterals(text: String, position: Int, message: String) throws {
        let error = try #require(F.error(text))
        #expect(error.message == message)
        #expect(error.position == position)
    }

    /// DATE, TIMESTAMP and ESCAPE are contextual: fields with those names work unquoted.
    @Test func contextualKeywordsAsFieldNames() throws {
        let schema = Schema(fields: [Field(name: "date", type: .date), Field(name: "timestamp", type: .date),
                                     Field(name: "escape", type: .string)])
        let clause = try WhereClause("date > date '2020-01-01' AND timestamp < TIMESTAMP '2030-01-01 00:00:00' AND escape LIKE 'a%' ESCAPE '!'",
                                     schema: schema)
        #expect(clause.matches(WhereArrayRow(values: [.date(milliseconds: 1_700_000_000_000),
                                                      .date(milliseconds: 1_700_000_000_000), .string("abc")])))
        #expect(clause.referencedFieldIndices == [0, 1, 2])
    }
}

