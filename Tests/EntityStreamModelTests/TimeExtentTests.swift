import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("Instants and time extents", .bounded)
struct TimeExtentTests {
    /// ISO-8601 forms, with and without offsets, and epoch milliseconds all read as UTC epoch ms.
    @Test(arguments: [
        ("2000-09-01", Int64(967_766_400_000)),
        ("2000-09-01T00:00:00Z", 967_766_400_000),
        ("2000-09-01 00:00", 967_766_400_000),
        ("2000-09-01T02:00:00+02:00", 967_766_400_000),
        ("2000-08-31T19:00:00-0500", 967_766_400_000),
        ("2000-09-01T00:00:00.5Z", 967_766_400_500),
        ("2000-09-22T00:00:00.123456789Z", 969_580_800_123),
        ("969580800000", 969_580_800_000),
        ("-1000", -1000),
    ])
    func parsesInstants(text: String, expected: Int64) throws {
        #expect(try Instant.parse(text) == expected)
    }

    /// Bad instants name what is wrong instead of guessing.
    @Test(arguments: [
        ("2000-02-30", InstantError.dayOutOfRange("2000-02-30", day: 30, year: 2000, month: 2, days: 29)),
        ("2000-13-01", .monthOutOfRange("2000-13-01", month: 13)), ("yesterday", .malformed("yesterday")),
        ("2000-09-01T25:00", .hourOutOfRange("2000-09-01T25:00", hour: 25)), ("99999999999999999999", .epochOverflow("99999999999999999999")),
        ("253402300800000", .epochOutOfRange("253402300800000")), ("2000-09-01T00:00+19:00", .offsetOutOfRange("2000-09-01T00:00+19:00")),
        ("", .empty("")), ("0000-01-01", .yearZero("0000-01-01")),
    ])
    func refusesBadInstants(text: String, expected: InstantError) {
        #expect(throws: expected) { try Instant.parse(text) }
    }

    /// The message names the text and what is wrong with it.
    @Test func instantErrorText() {
        #expect(InstantError.dayOutOfRange("2000-02-30", day: 30, year: 2000, month: 2, days: 29).description
            == "invalid time '2000-02-30': day 30 is out of range (2000-02 has 29 days)")
    }

    /// Both boundaries are inclusive (esriTimeRelationOverlaps), open ends are unbounded.
    @Test
    func boundariesAreInclusive() throws {
        let extent = try TimeExtent(start: 100, end: 200)
        #expect(extent.contains(100) && extent.contains(200) && extent.contains(150))
        #expect(!extent.contains(99) && !extent.contains(201))
        #expect(extent.overlaps(from: 50, to: 100) && extent.overlaps(from: 200, to: 300))
        #expect(!extent.overlaps(from: 201, to: 300) && !extent.overlaps(from: 0, to: 99))
        let openStart = try TimeExtent(start: nil, end: 200)
        #expect(openStart.contains(.min) && !openStart.contains(201))
        let instant = try TimeExtent.parse("150")
        #expect(instant.contains(150) && !instant.contains(151))
    }

    /// REST `time` parameters parse and print back; an end before the start is refused.
    @Test
    func restParameterRoundTrips() throws {
        let sample = try TimeExtent.parse("2000-09-01,2000-09-22")
        #expect(sample.restParameter == "967766400000,969580800000")
        #expect(try TimeExtent.parse("null,1230768000000").start == nil)
        #expect(try TimeExtent.parse(sample.restParameter) == sample)
        #expect(throws: TimeExtentError.self) { try TimeExtent.parse("2000-09-22,2000-09-01") }
        #expect(throws: TimeExtentError.self) { try TimeExtent.parse("1,2,3") }
    }
}
