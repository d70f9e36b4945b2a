import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// appendISO8601(milliseconds:) against Foundation and known proleptic-Gregorian dates.
@Suite(.bounded)
struct JSONISO8601Tests {
    func iso(_ milliseconds: Int64) -> String {
        var writer = JSONWriter()
        writer.appendISO8601(milliseconds: milliseconds)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Known instants, including leap days and negative epochs.
    @Test func knownInstants() {
        #expect(iso(0) == #""1970-01-01T00:00:00.000Z""#)
        #expect(iso(-1) == #""1969-12-31T23:59:59.999Z""#)
        #expect(iso(951_782_400_123) == #""2000-02-29T00:00:00.123Z""#)
        #expect(iso(1_795_248_660_123) == #""2026-11-21T08:11:00.123Z""#)
        #expect(iso(-2_203_891_200_000) == #""1900-03-01T00:00:00.000Z""#)       // 1900 is not a leap year
        #expect(iso(-11_670_998_400_000) == #""1600-02-29T00:00:00.000Z""#)      // 1600 is
        #expect(iso(253_402_300_799_999) == #""9999-12-31T23:59:59.999Z""#)
    }

    /// Proleptic Gregorian before 1582 and ISO-8601 expanded years outside 0…9999.
    @Test func prolepticAndExpandedYears() {
        #expect(iso(-62_135_596_800_000) == #""0001-01-01T00:00:00.000Z""#)
        #expect(iso(-62_167_219_200_000) == #""0000-01-01T00:00:00.000Z""#)
        #expect(iso(-62_198_755_200_000) == #""-0001-01-01T00:00:00.000Z""#)
        #expect(iso(253_402_300_800_000) == #""+10000-01-01T00:00:00.000Z""#)
        // Extremes do not trap.
        #expect(iso(.max).hasPrefix("\"+292278994-08-17T07:12:55.807Z"))
        #expect(iso(.min).hasPrefix("\"-292275055-05-16T16:47:04.192Z"))
    }

    /// Random instants from 1582-10-15 (where Foundation's calendar turns Gregorian) to 9999 match ISO8601DateFormatter.
    @Test func matchesFoundationFormatter() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SplitMix64(seed: 0x1508)
        let earliest: Int64 = -12_219_292_800_000   // 1582-10-15T00:00:00Z
        let latest: Int64 = 253_402_300_799_999
        var instants: [Int64] = (0..<5000).map { _ in Int64.random(in: earliest...latest, using: &rng) }
        instants += (0..<2000).map { _ in Int64.random(in: -3_000_000_000_000...3_000_000_000_000, using: &rng) }
        // Around leap days of leap and non-leap centuries.
        for year in [1600, 1700, 1800, 1900, 2000, 2024, 2100, 2400] {
            var components = DateComponents()
            components.calendar = Calendar(identifier: .gregorian)
            components.timeZone = TimeZone(identifier: "UTC")
            components.year = year
            components.month = 2
            components.day = 28
            let base = Int64((components.date!.timeIntervalSince1970 * 1000).rounded())
            for hours in stride(from: -2, through: 50, by: 1) { instants.append(base + Int64(hours) * 3_600_000 + 999) }
        }
        for ms in instants {
            let expected = "\"" + formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) + "\""
            #expect(iso(ms) == expected, "\(ms)")
        }
    }
}
