import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots
import EntityStreamModel

/// The steps of `HotSpotAnalysis.run`, each driven on its own with oracles written here.
@Suite("Hot-spot analysis steps", .bounded)
struct AnalysisStepTests {
    private func incidents(_ points: [(Double, Double)], coordinates: HotSpotCoordinates = .projected) -> HotSpotInput {
        var input = HotSpotInput(kind: .incidents, coordinates: coordinates)
        for (x, y) in points { input.append(x: x, y: y) }
        return input
    }

    /// Too few incidents: refused, or allowed and marked forced when forced.
    @Test func inputSizeRefusesTooFewIncidentsUnlessForced() throws {
        let input = incidents((0..<10).map { (Double($0), 0) })
        let strict = HotSpotAnalysis(options: HotSpotOptions(minimumIncidents: 11))
        #expect(throws: HotSpotError.tooFewIncidents(count: 10, minimum: 11)) { try strict.checkInputSize(input) }
        #expect(try HotSpotAnalysis(options: HotSpotOptions(minimumIncidents: 11, force: true)).checkInputSize(input))
        #expect(try !HotSpotAnalysis(options: HotSpotOptions(minimumIncidents: 10)).checkInputSize(input))
    }

    /// Too few points kept because the others lay outside WGS84 is named as that, with the swap hint.
    @Test func inputSizeNamesPointsOutsideWGS84() {
        var points = (0..<5).map { (Double($0), 1.0) }
        points += [(45, 120), (10, 100)]   // latitude 120 and 100: outside; both fit when swapped
        let input = incidents(points, coordinates: .geographic)
        let analysis = HotSpotAnalysis(options: HotSpotOptions(minimumIncidents: 6))
        #expect(throws: HotSpotError.coordinatesOutsideWGS84(kept: 5, minimum: 6, excluded: 2, example: Point(x: 45, y: 120), swapped: true)) {
            try analysis.checkInputSize(input)
        }
    }

    /// The feature count: below the minimum refused (or forced, never below the absolute minimum of 3).
    @Test func featureCountMinimums() throws {
        let strict = HotSpotAnalysis(options: HotSpotOptions(minimumFeatures: 30))
        #expect(throws: HotSpotError.tooFewFeatures(count: 29, minimum: 30, what: "features")) { try strict.checkFeatureCount(29, what: "features") }
        #expect(try !strict.checkFeatureCount(30, what: "features"))
        let forced = HotSpotAnalysis(options: HotSpotOptions(minimumFeatures: 30, force: true))
        #expect(try forced.checkFeatureCount(3, what: "cells"))
        #expect(throws: HotSpotError.tooFewFeatures(count: 2, minimum: 3, what: "cells")) { try forced.checkFeatureCount(2, what: "cells") }
        let lax = HotSpotAnalysis(options: HotSpotOptions(minimumFeatures: 0))
        #expect(throws: HotSpotError.tooFewFeatures(count: 2, minimum: 3, what: "cells")) { try lax.checkFeatureCount(2, what: "cells") }
    }

    /// Mean and population standard deviation against the two-pass formula written here; constant values refused.
    @Test func valueMoments() throws {
        let values = [2.0, 4, 4, 4, 5, 5, 7, 9]
        let moments = try ValueMoments(values)
        #expect(moments.mean == 5)
        #expect(moments.standardDeviation == 2)   // the textbook example: population sd 2
        #expect(throws: HotSpotError.zeroVariance(variance: 0)) { try ValueMoments([3, 3, 3]) }
    }

    /// Collect events: one feature per distinct location, valued by how many incidents share it, carrying its first record.
    @Test func collectEventsCountsCoincidentIncidents() throws {
        let points: [(Double, Double)] = [(0, 0), (5, 5), (0, 0), (9, 1), (5, 5), (0, 0)]
        let input = incidents(points)
        let analysis = HotSpotAnalysis(options: HotSpotOptions(aggregation: .collectEvents))
        let frame = try PlanarFrame.make(.projected, x: input.x, y: input.y)
        var stages: [HotSpotMonitor.Stage] = []
        let features = try analysis.analysedFeatures(input, frame: frame, monitor: .none) { _, stage in stages.append(stage) }
        // Brute force: group by exact location.
        var counts: [String: (count: Double, first: Int32)] = [:]
        for (index, point) in points.enumerated() {
            counts["\(point.0),\(point.1)", default: (0, Int32(index))].count += 1
        }
        #expect(features.values.count == counts.count)
        for i in features.values.indices {
            let key = "\(features.x[i]),\(features.y[i])"
            #expect(counts[key]?.count == features.values[i], "\(key)")
            #expect(counts[key]?.first == features.records[i], "\(key)")
        }
        #expect(features.what == "distinct incident locations" && features.sites.count == 3 && features.fishnet == nil)
        #expect(stages.isEmpty)
    }

    /// A given band beyond the data's extent is refused; without a band, one location cannot choose one.
    @Test func distanceBandRefusals() throws {
        let sites = Sites(distinctE: [0, 10, 20], n: [0, 0, 5], u: [])
        let given = HotSpotAnalysis(options: HotSpotOptions(distanceBand: 25))
        #expect(throws: HotSpotError.bandExceedsExtent(band: 25, extent: 20)) {
            try given.distanceBand(sites: sites, values: [1, 2, 3], monitor: .none) { _ in }
        }
        let band = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 20)).distanceBand(sites: sites, values: [1, 2, 3], monitor: .none) { _ in }
        #expect(band.band == 20 && band.choice == .given)
        let one = Sites(distinctE: [4], n: [4], u: [])
        #expect(throws: HotSpotError.coincidentLocations(count: 3)) {
            try HotSpotAnalysis().distanceBand(sites: one, values: [1, 2, 3], monitor: .none) { _ in }
        }
    }

    /// Gi* scores against the definition computed here by brute force (binary weights within the band, self included).
    @Test func giStarScoresMatchTheDefinition() throws {
        let e: [Double] = [0, 1, 2, 10, 11, 30, 31, 32, 33]
        let n: [Double] = [0, 0, 1, 0, 1, 0, 0, 1, 1]
        let values: [Double] = [1, 3, 2, 8, 9, 1, 0, 2, 5]
        let sites = Sites(distinctE: e, n: n, u: [])
        let moments = try ValueMoments(values)
        let band = 2.5
        let scores = try GiStarScores(sites: sites, values: values, moments: moments, band: band, monitor: .none) { _ in }
        let count = Double(values.count)
        for i in values.indices {
            var weights = 0.0, sum = 0.0
            for j in values.indices where ((e[i] - e[j]) * (e[i] - e[j]) + (n[i] - n[j]) * (n[i] - n[j])).squareRoot() <= band {
                weights += 1
                sum += values[j]
            }
            let z = (sum - moments.mean * weights)
                / (moments.standardDeviation * ((count * weights - weights * weights) / (count - 1)).squareRoot())
            #expect(abs(scores.zScores[i] - z) < 1e-9, "feature \(i): \(scores.zScores[i]) vs \(z)")
            #expect(scores.neighbors[i] == Int32(weights) - 1)
        }
        #expect(scores.withoutNeighbors == 0)
    }
}
