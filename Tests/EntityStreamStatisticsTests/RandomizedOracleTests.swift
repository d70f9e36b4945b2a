import EntityStreamTestSupport
import Testing
import EntityStreamStatistics
import EntityStreamModel

@Suite("Statistics against a naive GROUP BY on random data (SplitMix64, seeded)", .bounded)
struct RandomizedOracleTests {
    /// 0 region (string), 1 level (integer), 2 x (double), 3 n (integer), 4 label (string), 5 at (date).
    static let schema = Schema(fields: [
        Field(name: "region", type: .string), Field(name: "level", type: .integer), Field(name: "x", type: .double),
        Field(name: "n", type: .integer), Field(name: "label", type: .string), Field(name: "at", type: .date),
    ])

    static let specs: [(String, NaiveGroupBy.Kind, Int)] = [
        ("count:x", .count, 2), ("sum:x", .sum, 2), ("avg:x", .avg, 2), ("stddev:x", .stddev, 2), ("var:x", .variance, 2),
        ("min:x", .min, 2), ("max:x", .max, 2), ("count:*", .countRows, 0), ("sum:n", .sum, 3), ("avg:n", .avg, 3),
        ("stddev:n", .stddev, 3), ("min:n", .min, 3), ("max:n", .max, 3), ("min:label", .min, 4), ("max:label", .max, 4),
        ("count:label", .count, 4), ("min:at", .min, 5), ("max:at", .max, 5),
    ]

    static let regions = ["North", "south", "Éast", "west", "Nord-Süd", ""]

    /// Random rows: few group values (with NULLs), doubles with a large offset, integers, strings, dates, ~10% NULL each.
    static func rows(seed: UInt64, count: Int) -> [[AttributeValue]] {
        var random = SplitMix64(seed: seed)
        var rows: [[AttributeValue]] = []
        for _ in 0..<count {
            func maybe(_ value: AttributeValue) -> AttributeValue { random.chance(0.1) ? .null : value }
            let region = maybe(.string(regions[random.next(below: regions.count)]))
            let level = maybe(.int(Int64(random.next(below: 5)) - 2))
            let offset = random.chance(0.5) ? 1e6 : -3.0
            let x = maybe(.double(offset + random.uniform(-50, 50)))
            let n = maybe(.int(Int64(random.next(below: 2_000_001)) - 1_000_000))
            let label = maybe(.string(String(repeating: "ab", count: random.next(below: 3)) + String(random.next(below: 1000))))
            let at = maybe(.date(milliseconds: Int64(random.next(below: 1 << 40)) - (1 << 39)))
            rows.append([region, level, x, n, label, at])
        }
        return rows
    }

    static func plan(groupBy: [String]) throws -> StatisticsPlan {
        try StatisticsPlan(try StatisticsRequest(statisticSpecs: specs.map(\.0), groupBy: groupBy), schema: schema)
    }

    static func oracle(groupBy: [Int]) -> NaiveGroupBy {
        NaiveGroupBy(groupFields: groupBy, statistics: specs.map { NaiveGroupBy.Statistic(kind: $0.1, field: $0.2) })
    }

    /// Compares engine records with the oracle's: group values and integers exactly, doubles to `tolerance` relative.
    static func expectAgreement(_ result: StatisticsResult, _ expected: [(group: [AttributeValue], values: [AttributeValue])],
                                tolerance: Double = 1e-9) {
        #expect(result.records.count == expected.count)
        for (record, truth) in zip(result.records, expected) {
            #expect(record.group.map(\.value) == truth.group)
            for (index, (named, value)) in zip(record.statistics, truth.values).enumerated() {
                if case .double(let a) = named.value, case .double(let b) = value {
                    #expect(close(a, b, tolerance: tolerance), "\(specs[index].0) of \(truth.group): \(a) vs \(b)")
                } else {
                    #expect(named.value == value, "\(specs[index].0) of \(truth.group)")
                }
            }
        }
    }

    /// Every statistic agrees with the naive GROUP BY to 1e-9 relative, for 0, 1 and 2 group fields.
    @Test(arguments: [(UInt64(1), 5000), (2, 20000), (3, 1), (4, 0), (42, 3000)])
    func agreesWithNaiveGroupBy(seed: UInt64, count: Int) throws {
        let rows = Self.rows(seed: seed, count: count)
        for (names, indices) in [([String](), [Int]()), (["region"], [0]), (["region", "LEVEL"], [0, 1])] {
            let result = try Self.plan(groupBy: names).compute(rows.map { TestRow(values: $0) })
            Self.expectAgreement(result, Self.oracle(groupBy: indices).run(rows))
            #expect(result.rowCount == count)
        }
    }

    /// Identity-keyed rows give exactly the records plain rows give.
    @Test(arguments: [UInt64(5), 6])
    func identityPathEqualsPlainPath(seed: UInt64) throws {
        let rows = Self.rows(seed: seed, count: 8000)
        let plan = try Self.plan(groupBy: ["level", "region"])
        var interner = TestInterner()
        var identity = plan.makeAccumulator()
        var plain = plan.makeAccumulator()
        for values in rows {
            identity.add(interner.row(values))
            plain.add(TestRow(values: values))
        }
        #expect(identity.finish() == plain.finish())
        Self.expectAgreement(identity.finish(), Self.oracle(groupBy: [1, 0]).run(rows))
    }

    /// Identity words that differ for equal values (0.0 and -0.0, 1 and 1.0) still land in one group.
    @Test
    func identityPathMergesEqualValues() throws {
        let schema = Schema(fields: [Field(name: "k", type: .other("mixed")), Field(name: "v", type: .double)])
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["count:*", "sum:v"], groupBy: ["k"]), schema: schema)
        var interner = TestInterner()
        var accumulator = plan.makeAccumulator()
        for (key, value) in [(AttributeValue.double(0), 1.0), (.double(-0.0), 2), (.int(1), 4), (.double(1), 8), (.int(0), 16), (.null, 32)] {
            accumulator.add(interner.row([key, .double(value)]))
        }
        let result = accumulator.finish()
        #expect(result.records.map { $0.statistics.map(\.value) } == [
            [.int(1), .double(32)], [.int(3), .double(19)], [.int(2), .double(12)],
        ])
    }

    /// Splitting the rows over several accumulators (plain and identity) and merging equals one pass.
    @Test(arguments: [UInt64(7), 8, 9])
    func mergeEqualsSinglePass(seed: UInt64) throws {
        let rows = Self.rows(seed: seed, count: 10000)
        let plan = try Self.plan(groupBy: ["region", "level"])
        var random = SplitMix64(seed: seed ^ 0xABCDEF)
        let parts = 2 + random.next(below: 4)
        var accumulators = (0..<parts).map { _ in plan.makeAccumulator() }
        var interners = Array(repeating: TestInterner(), count: parts)
        for values in rows {
            let part = random.next(below: parts)
            if part % 2 == 0 {
                accumulators[part].add(interners[part].row(values))
            } else {
                accumulators[part].add(TestRow(values: values))
            }
        }
        var merged = accumulators[0]
        for other in accumulators.dropFirst() { merged.merge(other) }
        let single = plan.compute(rows.map { TestRow(values: $0) })
        Self.expectAgreement(merged.finish(), single.records.map { ($0.group.map(\.value), $0.statistics.map(\.value)) },
                             tolerance: 1e-12)
        Self.expectAgreement(merged.finish(), Self.oracle(groupBy: [0, 1]).run(rows))
        #expect(merged.finish().rowCount == rows.count)
    }

    /// Merging into an accumulator without group-by, and merging empty accumulators, keeps SQL's single record.
    @Test
    func mergeWithoutGroups() throws {
        let plan = try Self.plan(groupBy: [])
        var a = plan.makeAccumulator()
        let b = plan.makeAccumulator()
        a.merge(b)
        #expect(a.finish().records.count == 1)
        #expect(a.finish().records.first?.statistic("COUNT_ALL") == .int(0))
        var c = plan.makeAccumulator()
        c.add(TestRow(values: [.null, .null, .double(2), .null, .null, .null]))
        a.merge(c)
        a.merge(c)
        #expect(a.finish().records.first?.statistic("SUM_x") == .double(4))
        #expect(a.finish().records.first?.statistic("STDDEV_x") == .double(0))
    }
}
