import EntityStreamTestSupport
import Testing
import EntityStreamStatistics
import EntityStreamModel

@Suite("Statistics semantics: ArcGIS/SQL rules on small hand-checked tables", .bounded)
struct SemanticsTests {
    /// 0 g (string), 1 h (integer), 2 x (double), 3 n (integer), 4 t (date), 5 s (string), 6 d (unknown type).
    static let schema = Schema(fields: [
        Field(name: "g", type: .string), Field(name: "h", type: .integer), Field(name: "x", type: .double),
        Field(name: "n", type: .integer), Field(name: "t", type: .date), Field(name: "s", type: .string),
        Field(name: "d", type: .other("esriFieldTypeBlob")),
    ])

    static func run(_ stats: [String], groupBy: [String] = [], orderBy: [String] = [], having: String? = nil,
                    rows: [[AttributeValue]]) throws -> StatisticsResult {
        let request = try StatisticsRequest(statisticSpecs: stats, groupBy: groupBy, orderBy: orderBy, having: having)
        return try StatisticsPlan(request, schema: schema).compute(rows.map { TestRow(values: $0) })
    }

    static func row(g: AttributeValue = .null, h: AttributeValue = .null, x: AttributeValue = .null, n: AttributeValue = .null,
                    t: AttributeValue = .null, s: AttributeValue = .null, d: AttributeValue = .null) -> [AttributeValue] {
        [g, h, x, n, t, s, d]
    }

    static let all = ["count:x", "sum:x", "min:x", "max:x", "avg:x", "stddev:x", "var:x", "count:*"]

    /// Every type over 2, 4, 4, 4, 5, 5, 7, 9 (mean 5, sample variance 32/7) with and without NULLs mixed in.
    @Test(arguments: [false, true])
    func everyType(withNulls: Bool) throws {
        var rows = [2.0, 4, 4, 4, 5, 5, 7, 9].map { Self.row(x: .double($0)) }
        if withNulls { rows.insert(Self.row(), at: 3); rows.append(Self.row(x: .double(.nan))); rows.insert(Self.row(), at: 0) }
        let result = try Self.run(Self.all, rows: rows)
        let record = try #require(result.records.first)
        #expect(result.records.count == 1)
        #expect(record.group.isEmpty)
        #expect(record.statistics.map(\.name) == ["COUNT_x", "SUM_x", "MIN_x", "MAX_x", "AVG_x", "STDDEV_x", "VAR_x", "COUNT_ALL"])
        #expect(record.statistic("COUNT_x") == .int(8))
        #expect(record.statistic("SUM_x") == .double(40))
        #expect(record.statistic("MIN_x") == .double(2))
        #expect(record.statistic("MAX_x") == .double(9))
        #expect(record.statistic("AVG_x") == .double(5))
        #expect(close(try #require(record.statistic("VAR_x")?.double), 32.0 / 7))
        #expect(close(try #require(record.statistic("STDDEV_x")?.double), (32.0 / 7).squareRoot()))
        #expect(record.statistic("COUNT_ALL") == .int(withNulls ? 11 : 8))
        #expect(result.rowCount == (withNulls ? 11 : 8))
    }

    /// Without group-by and without rows there is one record: counts 0, everything else NULL (SQL).
    @Test
    func emptyInputWithoutGroups() throws {
        let result = try Self.run(Self.all, rows: [])
        #expect(result.records == [StatisticsRecord(group: [], statistics: [
            NamedValue(name: "COUNT_x", value: .int(0)), NamedValue(name: "SUM_x", value: .null),
            NamedValue(name: "MIN_x", value: .null), NamedValue(name: "MAX_x", value: .null),
            NamedValue(name: "AVG_x", value: .null), NamedValue(name: "STDDEV_x", value: .null),
            NamedValue(name: "VAR_x", value: .null), NamedValue(name: "COUNT_ALL", value: .int(0)),
        ])])
    }

    /// With group-by and without rows there are no records.
    @Test
    func emptyInputWithGroups() throws {
        let result = try Self.run(Self.all, groupBy: ["g"], rows: [])
        #expect(result.records.isEmpty)
        #expect(result.groupCount == 0)
    }

    /// A group whose field is all NULL: count 0, the rest NULL; a single value: stddev and var NULL.
    @Test
    func emptyAndSingleValueGroups() throws {
        let rows = [Self.row(g: "a"), Self.row(g: "a"), Self.row(g: "b", x: .double(3.5))]
        let result = try Self.run(Self.all, groupBy: ["g"], rows: rows)
        #expect(result.records.map { $0.statistics.map(\.value) } == [
            [.int(0), .null, .null, .null, .null, .null, .null, .int(2)],
            [.int(1), .double(3.5), .double(3.5), .double(3.5), .double(3.5), .null, .null, .int(1)],
        ])
    }

    /// NULL group values form their own group, first in ascending order and last in descending order; NaN joins it.
    @Test
    func nullGroupKeys() throws {
        let rows = [Self.row(g: "b", x: 1), Self.row(x: 2), Self.row(g: "a", x: 4), Self.row(x: 8), Self.row(g: "b", x: 16)]
        let ascending = try Self.run(["sum:x"], groupBy: ["g"], rows: rows)
        #expect(ascending.records.map { $0.group } == [[NamedValue(name: "g", value: .null)], [NamedValue(name: "g", value: "a")],
                                                      [NamedValue(name: "g", value: "b")]])
        #expect(ascending.records.map { $0.statistics[0].value } == [.double(10), .double(4), .double(17)])
        let descending = try Self.run(["sum:x"], groupBy: ["g"], orderBy: ["g DESC"], rows: rows)
        #expect(descending.records.map { $0.groupValue("g") } == [.string("b"), .string("a"), .null])
        let doubles = try Self.run(["count:*"], groupBy: ["x"], rows: [Self.row(x: .double(.nan)), Self.row(), Self.row(x: 1.0)])
        #expect(doubles.records.map { $0.groupValue("x") } == [.null, .double(1)])
        #expect(doubles.records.map { $0.statistic("COUNT_ALL") } == [.int(2), .int(1)])
    }

    /// Several group fields: one record per distinct combination, ordered by the fields in turn.
    @Test
    func multiFieldGroups() throws {
        let rows = [Self.row(g: "b", h: 2, x: 1), Self.row(g: "a", h: 2, x: 2), Self.row(g: "b", h: 1, x: 4),
                    Self.row(g: "a", h: 2, x: 8), Self.row(g: "b", h: 2, x: 16), Self.row(g: "a", h: .null, x: 32)]
        let result = try Self.run(["sum:x", "count:*"], groupBy: ["g", "h"], rows: rows)
        #expect(result.records.map { [$0.groupValue("g"), $0.groupValue("h")] } == [
            [.string("a"), .null], [.string("a"), .int(2)], [.string("b"), .int(1)], [.string("b"), .int(2)],
        ])
        #expect(result.records.map { $0.statistic("SUM_x") } == [.double(32), .double(10), .double(4), .double(17)])
        #expect(result.records.map { $0.statistic("count_all") } == [.int(1), .int(2), .int(1), .int(2)])
    }

    /// Equal numbers group together whatever their kind or sign of zero; strings group by their Unicode scalars (as the
    /// store interns them and SQL engines group), case-sensitively: "é" precomposed and decomposed are two groups.
    @Test
    func groupingEquality() throws {
        let numbers = try Self.run(["count:*"], groupBy: ["d"], rows: [
            Self.row(d: .int(1)), Self.row(d: .double(1)), Self.row(d: .double(0)), Self.row(d: .double(-0.0)), Self.row(d: .bool(true)),
        ])
        #expect(numbers.records.map { $0.statistic("COUNT_ALL") } == [.int(2), .int(3)])
        let strings = try Self.run(["count:*"], groupBy: ["g"], rows: [
            Self.row(g: "\u{E9}"), Self.row(g: "e\u{301}"), Self.row(g: "E"), Self.row(g: "e"),
        ])
        #expect(strings.records.map { $0.groupValue("g") } == [.string("E"), .string("e"), .string("e\u{301}"), .string("\u{E9}")])
        #expect(strings.records.map { $0.statistic("COUNT_ALL") } == [.int(1), .int(1), .int(1), .int(1)])
    }

    /// Order by statistic names and aliases, ascending and descending, ties broken by the group fields ascending.
    @Test
    func orderingByStatistics() throws {
        let rows = [Self.row(g: "a", x: 5), Self.row(g: "b", x: 1), Self.row(g: "c", x: 5), Self.row(g: "d", x: 3),
                    Self.row(g: "d", x: 3), Self.row(g: "e")]
        let byAverage = try Self.run(["avg:x", "count:x:n"], groupBy: ["g"], orderBy: ["AVG_x DESC"], rows: rows)
        #expect(byAverage.records.map { $0.groupValue("g") } == ["a", "c", "d", "b", "e"].map { .string($0) })
        let byAliasAscending = try Self.run(["avg:x", "count:x:n"], groupBy: ["g"], orderBy: ["N", "avg_x DESC"], rows: rows)
        #expect(byAliasAscending.records.map { $0.groupValue("g") } == ["e", "a", "c", "b", "d"].map { .string($0) })
        let nullsFirst = try Self.run(["avg:x"], groupBy: ["g"], orderBy: ["AVG_x"], rows: rows)
        #expect(nullsFirst.records.map { $0.groupValue("g") } == ["e", "b", "d", "a", "c"].map { .string($0) })
        let groupDescending = try Self.run(["avg:x"], groupBy: ["g"], orderBy: ["g DESC"], rows: rows)
        #expect(groupDescending.records.map { $0.groupValue("g") } == ["e", "d", "c", "b", "a"].map { .string($0) })
    }

    /// Having keeps groups whose condition is true, also with an aggregate that was not requested; unknown drops.
    @Test
    func having() throws {
        let rows = [Self.row(g: "a", x: 1), Self.row(g: "a", x: 2), Self.row(g: "a", x: 3),
                    Self.row(g: "b", x: 10), Self.row(g: "b", x: 20),
                    Self.row(g: "c", x: 100),
                    Self.row(g: "d"), Self.row(g: "d")]
        let requested = try Self.run(["avg:x", "count:*"], groupBy: ["g"], having: "AVG(x) > 1.5 AND COUNT(*) >= 2", rows: rows)
        #expect(requested.records.map { $0.groupValue("g") } == [.string("a"), .string("b")])
        let hidden = try Self.run(["count:*"], groupBy: ["g"], having: "max(X) - MIN(x) >= 2 OR stddev(x) > 100", rows: rows)
        #expect(hidden.records.map { $0.groupValue("g") } == [.string("a"), .string("b")])
        #expect(hidden.records.map { $0.statistics.map(\.name) } == [["COUNT_ALL"], ["COUNT_ALL"]])
        let nulls = try Self.run(["count:x"], groupBy: ["g"], having: "SUM(x) IS NULL OR VAR(x) > 40", rows: rows)
        #expect(nulls.records.map { $0.groupValue("g") } == [.string("b"), .string("d")])
        #expect(nulls.groupCount == 4)
    }

    /// Aliases replace default names; default names use the schema's spelling of the field.
    @Test
    func aliasesAndDefaultNames() throws {
        let result = try Self.run(["avg:X", "count:x:plows", "max:S"], groupBy: ["G"], rows: [Self.row(g: "a", x: 2, s: "z")])
        #expect(result.records == [StatisticsRecord(group: [NamedValue(name: "g", value: "a")], statistics: [
            NamedValue(name: "AVG_x", value: .double(2)), NamedValue(name: "plows", value: .int(1)),
            NamedValue(name: "MAX_s", value: .string("z")),
        ])])
    }

    /// Min and max of strings use binary UTF-8 order; of dates they are dates; count counts them.
    @Test
    func stringsAndDates() throws {
        let rows = [Self.row(t: .date(milliseconds: 86_400_000), s: "banana"), Self.row(t: .date(milliseconds: -5), s: "Zebra"),
                    Self.row(s: "\u{E9}clair"), Self.row(t: .date(milliseconds: 7)), Self.row(s: "apple")]
        let result = try Self.run(["min:s", "max:s", "count:s", "min:t", "max:t", "count:t"], rows: rows)
        #expect(result.records.first?.statistics.map(\.value) == [
            .string("Zebra"), .string("\u{E9}clair"), .int(4), .date(milliseconds: -5), .date(milliseconds: 86_400_000), .int(3),
        ])
    }

    /// Integer fields: exact sums far beyond Int64 without trapping, averages of the exact sum, integer min/max.
    @Test
    func integerFields() throws {
        let big = Int64.max - 1
        let rows = [Self.row(n: .int(big)), Self.row(n: .int(big)), Self.row(n: .int(big)), Self.row(n: .int(Int64.min))]
        let result = try Self.run(["sum:n", "avg:n", "min:n", "max:n", "count:n", "var:n"], rows: rows)
        let exactSum = 3 * Double(big) + Double(Int64.min)
        let record = try #require(result.records.first)
        #expect(record.statistic("SUM_n") == .double(exactSum))
        #expect(record.statistic("AVG_n") == .double(exactSum / 4))
        #expect(record.statistic("MIN_n") == .int(Int64.min))
        #expect(record.statistic("MAX_n") == .int(big))
        #expect(record.statistic("COUNT_n") == .int(4))
        let small = try Self.run(["sum:n", "avg:n", "var:n"], rows: [1, 2, 3, 4].map { Self.row(n: .int($0)) })
        #expect(small.records.first?.statistics.map(\.value) == [.double(10), .double(2.5), .double(5.0 / 3)])
    }

    /// Compensated summation: 1e16, 1, -1e16 repeated sums exactly, where naive summation loses the ones.
    @Test
    func compensatedSum() throws {
        var rows: [[AttributeValue]] = []
        for _ in 0..<1000 { rows += [Self.row(x: 1e16), Self.row(x: 1), Self.row(x: -1e16)] }
        let result = try Self.run(["sum:x", "avg:x"], rows: rows)
        #expect(result.records.first?.statistic("SUM_x") == .double(1000))
        #expect(result.records.first?.statistic("AVG_x") == .double(1000.0 / 3000))
    }

    /// Welford's variance stays exact on large offsets where the sum-of-squares form cancels.
    @Test
    func varianceWithLargeOffset() throws {
        let rows = [4.0, 7, 13, 16].map { Self.row(x: .double(1e9 + $0)) }
        let result = try Self.run(["var:x"], rows: rows)
        #expect(close(try #require(result.records.first?.statistic("VAR_x")?.double), 30, tolerance: 1e-12))
    }

    /// "é" precomposed and decomposed are two groups (by Unicode scalars, as
    /// SQLite and DuckDB group), on plain rows, identity rows and merged
    /// accumulators alike; the oracle groups by the scalars in the test.
    @Test
    func canonicallyEquivalentKeysAreTwoGroups() throws {
        let keys = ["\u{E9}", "e\u{301}", "\u{E9}", "e\u{301}", "e\u{301}"]
        let rows = keys.enumerated().map { Self.row(g: .string($0.element), h: .int(Int64($0.offset + 1))) }
        var expected: [[UInt32]: (count: Int64, sum: Double)] = [:]
        for (i, key) in keys.enumerated() {
            expected[key.unicodeScalars.map(\.value), default: (0, 0)].count += 1
            expected[key.unicodeScalars.map(\.value), default: (0, 0)].sum += Double(i + 1)
        }
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["count:*", "sum:h"], groupBy: ["g"]), schema: Self.schema)
        var plain = plan.makeAccumulator(maximumGroups: 100)
        var identity = plan.makeAccumulator(maximumGroups: 100)
        var interner = TestInterner()
        var first = plan.makeAccumulator(maximumGroups: 100), second = plan.makeAccumulator(maximumGroups: 100)
        for (i, row) in rows.enumerated() {
            plain.add(TestRow(values: row))
            identity.add(interner.row(row))
            if i % 2 == 0 { first.add(TestRow(values: row)) } else { second.add(TestRow(values: row)) }
        }
        first.merge(second)
        for accumulator in [plain, identity, first] {
            let records = accumulator.finish().records
            #expect(records.count == expected.count)
            for record in records {
                guard case .string(let key)? = record.group.first?.value else { Issue.record("no key"); continue }
                let want = expected[key.unicodeScalars.map(\.value)]
                #expect(record.statistic("COUNT_ALL") == want.map { .int($0.count) })
                #expect(record.statistic("SUM_h") == want.map { .double($0.sum) })
            }
        }
    }

    /// Values of the wrong kind in a field of unknown type count for count/min/max, not for numeric statistics, and are reported.
    @Test
    func mistypedValuesAreCounted() throws {
        let rows = [Self.row(d: .int(2)), Self.row(d: .string("x")), Self.row(d: .double(4)), Self.row(d: .date(milliseconds: 1))]
        let result = try Self.run(["avg:d", "count:d", "min:d", "max:d"], rows: rows)
        #expect(result.records.first?.statistics.map(\.value) == [.double(3), .int(4), .date(milliseconds: 1), .string("x")])
        #expect(result.ignoredValueCount == 2)
    }

    /// Rows that would open a group beyond the limit are counted, not aggregated.
    @Test
    func groupLimit() throws {
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["count:*"], groupBy: ["h"]), schema: Self.schema)
        var accumulator = plan.makeAccumulator(maximumGroups: 2)
        for h in [1, 2, 3, 1, 4, 2, 3] { accumulator.add(TestRow(values: Self.row(h: .int(Int64(h))))) }
        let result = accumulator.finish()
        #expect(result.records.map { $0.statistic("COUNT_ALL") } == [.int(2), .int(2)])
        #expect(result.rowsOverGroupLimit == 3)
        #expect(result.rowCount == 7)
    }
}

extension AttributeValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
}
