import EntityStreamTestSupport
@testable import EntityStreamStatistics
import Testing
import EntityStreamModel

/// Sample variance of ill-conditioned data, against exact integer arithmetic
/// done in the test: values 10¹⁵ + k/4 (an ulp of 10¹⁵ is 0.125, so every
/// value is exact), whose variance is var(k)/16 with var(k) computed exactly
/// in Int128. Welford's update (and DuckDB, which uses it) was up to 21 % off here.
@Suite("Variance and standard deviation are exact to the last digits on ill-conditioned data", .bounded)
struct VarianceAccuracyTests {
    static let schema = Schema(fields: [Field(name: "x", type: .double)])
    static let base = 1e15

    /// Quarter steps over a small range, the first value anywhere in it.
    static func data(count: Int, spread: Int, seed: UInt64) -> [Int64] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in Int64(random.next(below: spread)) }
    }

    /// The exact sample variance of base + k/4, rounded once or twice (an error of at most 2⁻⁵²).
    static func exactVariance(_ k: [Int64]) -> Double {
        let n = Int128(k.count)
        var sum: Int128 = 0, squares: Int128 = 0
        for value in k { sum += Int128(value); squares += Int128(value) * Int128(value) }
        let numerator = n * squares - sum * sum
        return Double(numerator) / Double(n * (n - 1)) / 16
    }

    static func accumulator(_ k: ArraySlice<Int64>, plan: StatisticsPlan) -> StatisticsAccumulator {
        var accumulator = plan.makeAccumulator(maximumGroups: 10)
        for value in k { accumulator.add(TestRow(values: [.double(base + Double(value) / 4)])) }
        return accumulator
    }

    static func relativeError(_ value: AttributeValue?, _ exact: Double) -> Double {
        guard case .double(let x)? = value else { return .infinity }
        return abs(x - exact) / exact
    }

    @Test(arguments: [(2, 3, UInt64(1)), (10, 4, 2), (1_000, 4, 3), (10_000, 400, 4), (50_000, 16, 5), (20_000, 40_000, 6)])
    func singlePassAndMergedChunks(count: Int, spread: Int, seed: UInt64) throws {
        let k = Self.data(count: count, spread: spread, seed: seed)
        let exact = Self.exactVariance(k)
        try #require(exact > 0)
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["var:x", "stddev:x"]), schema: Self.schema)
        let single = Self.accumulator(k[...], plan: plan).finish().records[0]
        #expect(Self.relativeError(single.statistic("VAR_x"), exact) <= 4e-16, "var \(String(describing: single.statistic("VAR_x"))) exact \(exact)")
        #expect(Self.relativeError(single.statistic("STDDEV_x"), exact.squareRoot()) <= 4e-16)
        // Chunks aggregated apart and merged (as two cores would), in both orders.
        for parts in [2, 7] {
            let size = (k.count + parts - 1) / parts
            let chunks = stride(from: 0, to: k.count, by: size).map { Self.accumulator(k[$0..<min($0 + size, k.count)], plan: plan) }
            var forward = chunks[0]
            for chunk in chunks.dropFirst() { forward.merge(chunk) }
            var backward = chunks[chunks.count - 1]
            for chunk in chunks.dropLast().reversed() { backward.merge(chunk) }
            for merged in [forward, backward] {
                let record = merged.finish().records[0]
                #expect(Self.relativeError(record.statistic("VAR_x"), exact) <= 4e-16, "\(parts) parts")
            }
        }
    }

    /// A first value far from the rest (the shift) does not cost accuracy.
    @Test func farFirstValue() throws {
        var k = Self.data(count: 5_000, spread: 8, seed: 9)
        k.insert(-4_000_000_000_000, at: 0)   // base − 10¹²
        let exact = Self.exactVariance(k)
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["var:x"]), schema: Self.schema)
        #expect(Self.relativeError(Self.accumulator(k[...], plan: plan).finish().records[0].statistic("VAR_x"), exact) <= 4e-16)
    }

    /// Equal values have variance exactly 0; one value has none.
    @Test func degenerate() throws {
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["var:x"]), schema: Self.schema)
        #expect(Self.accumulator([7, 7, 7, 7], plan: plan).finish().records[0].statistic("VAR_x") == .double(0))
        #expect(Self.accumulator([7], plan: plan).finish().records[0].statistic("VAR_x") == .null)
    }
}
