import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots

/// Band selection on constructed data whose answer follows from the rules.
///
/// Most cases use points on a line 1 apart (x = 0, 1, 2, …; y = 0): every
/// nearest-neighbour distance is 1, so ISA starts at 1 × 1.0001, steps by 1,
/// and (grid data) adds 0.001: distances 1.0011, 2.0011, …, 10.0011, each
/// taking in one more lattice neighbour on each side.
@Suite("Distance band: Optimized Hot Spot Analysis's choice", .bounded)
struct BandSelectionTests {
    static func line(_ count: Int, _ value: (Int) -> Double) -> (x: [Double], y: [Double], values: [Double]) {
        ((0..<count).map(Double.init), [Double](repeating: 0, count: count), (0..<count).map(value))
    }

    static func run(_ data: (x: [Double], y: [Double], values: [Double]), force: Bool = false) throws -> HotSpotResult {
        try HotSpotAnalysis(options: HotSpotOptions(force: force)).run(Oracles.weighted(data.x, data.y, data.values))
    }

    /// Blocks of six +1 then six −1: Moran's I z rises while the band stays inside a block and falls once it
    /// reaches the next, so the first peak is the second distance (2.0011); ISA's z equals a brute-force Moran's I.
    @Test func firstPeak() throws {
        let data = Self.line(120) { ($0 / 6) % 2 == 0 ? 1 : -1 }
        let decision = try Self.run(data).summary.distanceBand
        let expectedDistances = (0..<10).map { 1.0001 + Double($0) + 0.001 }
        #expect(decision.steps.map(\.distance) == expectedDistances)
        let oracle = Oracles.moransIZ(x: data.x, y: data.y, values: data.values, cutoffs: expectedDistances)
        for (step, z) in zip(decision.steps, oracle) { #expect(abs(step.zScore - z) < 1e-9, "\(step.zScore) vs \(z)") }
        #expect(oracle[1] > oracle[0] && oracle[2] < oracle[1] && oracle[1] > 1.65)
        guard case .firstPeak(let z) = decision.choice else { Issue.record("\(decision.choice)"); return }
        #expect(decision.band == expectedDistances[1] && z == decision.steps[1].zScore)
        #expect(decision.reason.hasPrefix("first peak of Global Moran's I"))
        #expect(!decision.raisedToMinimum && decision.locationalOutliers == 0)
    }

    /// Alternating ±1: z is strongly negative at odd distances and near 0 at even ones, never a peak above
    /// 1.65, so the band is the mean distance to the 5th nearest neighbour (k = ⌊0.05·100⌋), computed here.
    @Test func nearestNeighborFallback() throws {
        let data = Self.line(100) { $0 % 2 == 0 ? 1 : -1 }
        let decision = try Self.run(data).summary.distanceBand
        let oracle = Oracles.moransIZ(x: data.x, y: data.y, values: data.values, cutoffs: decision.steps.map(\.distance))
        for (step, z) in zip(decision.steps, oracle) { #expect(abs(step.zScore - z) < 1e-9) }
        #expect(oracle.allSatisfy { $0 < 1.65 })
        #expect(decision.choice == .nearestNeighbors(k: 5, cappedAtStandardDistance: false))
        let expected = Oracles.meanKthNeighborDistance(x: data.x, y: data.y, k: 5)   // (2·5 + 2·4 + 96·3)/100
        #expect(abs(decision.band - expected) < 1e-12 && abs(expected - 3.06) < 1e-12)
        #expect(decision.reason == "mean distance to the 5th nearest neighbour (no peak of Global Moran's I above z 1.65)")
    }

    /// Two pairs 100 apart: every point's 3rd nearest neighbour is ~100 away, more than the standard
    /// distance (√2500.25 = 50.0025), so the band is capped at the standard distance.
    @Test func cappedAtStandardDistance() throws {
        let data: (x: [Double], y: [Double], values: [Double]) = ([0, 1, 100, 101], [0, 0, 0, 0], [1, 2, 3, 5])
        let decision = try Self.run(data, force: true).summary.distanceBand
        #expect(decision.choice == .nearestNeighbors(k: 3, cappedAtStandardDistance: true))
        #expect(abs(decision.band - 2500.25.squareRoot()) < 1e-12)
        #expect(decision.reason.hasPrefix("standard distance"))
    }

    /// The blocks of six plus two far points (±1,000,000): the far points are locational outliers, ISA
    /// still peaks at 2.0001 (no longer grid data), and the band is raised to 0.1 % of the 2,000,000 extent.
    @Test func raisedToMinimum() throws {
        var data = Self.line(120) { ($0 / 6) % 2 == 0 ? 1 : -1 }
        data.x += [1_000_000, -1_000_000]
        data.y += [0, 0]
        data.values += [1, -1]
        let result = try Self.run(data)
        let decision = result.summary.distanceBand
        #expect(decision.locationalOutliers == 2)
        #expect(decision.steps.first?.distance == 1.0001)
        guard case .firstPeak = decision.choice else { Issue.record("\(decision.choice)"); return }
        #expect(decision.raisedToMinimum && decision.band == 2000)
        #expect(decision.reason.hasSuffix("raised to 0.1 % of the extent (2000)"))
    }

    /// Thirty points (standard distance √((30²−1)/12) ≈ 8.66 < 10.0011): the ten distances are spread evenly
    /// from the start up to the standard distance, plus 0.001 for grid data.
    @Test func distancesCappedAtStandardDistance() throws {
        let data = Self.line(30) { ($0 / 3) % 2 == 0 ? 1 : -1 }
        let decision = try Self.run(data).summary.distanceBand
        let maximum = ((30.0 * 30 - 1) / 12).squareRoot()
        let step = (maximum - 1.0001) / 10
        let expected = (0..<10).map { 1.0001 + Double($0) * step + 0.001 }
        for (a, b) in zip(decision.steps.map(\.distance), expected) { #expect(abs(a - b) < 1e-12) }
        #expect(decision.steps.count == 10)
    }

    /// The default fishnet cell is OHSA's scaleDecision: a lattice 10 apart (duplicates ignored) gives
    /// mean = median = 10, scale 2, cell 20.
    @Test func defaultCellSize() throws {
        var input = HotSpotInput(kind: .incidents)
        for r in 0..<20 {
            for c in 0..<20 {
                for _ in 0..<(1 + (r * c) % 3) { input.append(x: Double(c) * 10, y: Double(r) * 10) }
            }
        }
        let result = try HotSpotAnalysis().run(input)
        let fishnet = try #require(result.fishnet)
        #expect(fishnet.cellSize == 20 && fishnet.columns == 10 && fishnet.rows == 10)
        #expect(fishnet.cellSizeReason.contains("× 2"))
        #expect(result.features.count == 100 && result.features.reduce(0) { $0 + $1.value } == Double(input.count))
        guard case .polygon(let ring) = result.geometry(of: result.features[0]) else { Issue.record("not a polygon"); return }
        #expect(ring == [[0, 0], [0, 20], [20, 20], [20, 0], [0, 0]])
    }
}

@Suite("Incremental Spatial Autocorrelation: bounded work", .bounded)
struct ISABudgetTests {
    /// More neighbours per feature than the budget at the largest distance abandons ISA (nil), as ArcGIS's stopMax.
    @Test func budgetExceeded() throws {
        var x: [Double] = [], y: [Double] = [], values: [Double] = []
        for r in 0..<20 {
            for c in 0..<20 {
                x.append(Double(c)); y.append(Double(r)); values.append(Double((r * 3 + c) % 5))
            }
        }
        let sites = Sites(distinctE: x, n: y, u: [])
        // At distance 3.5 an interior lattice point has 36 neighbours.
        let within = try IncrementalSpatialAutocorrelation.run(sites: sites, values: values, distances: [1.5, 2.5, 3.5],
                                                               maximumAverageNeighbors: 40, monitor: .none, progress: { _ in })
        #expect(within?.count == 3)
        let over = try IncrementalSpatialAutocorrelation.run(sites: sites, values: values, distances: [1.5, 2.5, 3.5],
                                                             maximumAverageNeighbors: 20, monitor: .none, progress: { _ in })
        #expect(over == nil)
    }
}
