import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots

@Suite("Gi*: edge cases", .bounded)
struct EdgeCaseTests {
    static func grid(_ side: Int, spacing: Double = 10) -> (x: [Double], y: [Double], values: [Double]) {
        var x: [Double] = [], y: [Double] = [], v: [Double] = []
        for r in 0..<side {
            for c in 0..<side {
                x.append(Double(c) * spacing)
                y.append(Double(r) * spacing)
                v.append(Double((r * 7 + c * 3) % 11))
            }
        }
        return (x, y, v)
    }

    /// Fewer than 30 features is refused with a message naming both counts; force analyses anyway.
    @Test func tooFewFeatures() throws {
        let data = Self.grid(5)   // 25 features
        let input = Oracles.weighted(data.x, data.y, data.values)
        #expect(throws: HotSpotError.tooFewFeatures(count: 25, minimum: 30, what: "features")) {
            try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15)).run(input)
        }
        let error = HotSpotError.tooFewFeatures(count: 25, minimum: 30, what: "features")
        #expect(error.description.contains("at least 30 features") && error.description.contains("there are 25"))
        let forced = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15, force: true)).run(input)
        #expect(forced.summary.forced && forced.features.count == 25)
        let lowered = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15, minimumFeatures: 20)).run(input)
        #expect(!lowered.summary.forced)
        // Even forced, fewer than 3 features is refused.
        #expect(throws: HotSpotError.tooFewFeatures(count: 2, minimum: 3, what: "features")) {
            try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 1, force: true))
                .run(Oracles.weighted([0, 1], [0, 0], [1, 2]))
        }
    }

    /// Incidents need 60 by default (OHSA without a boundary); then at least 30 cells.
    @Test func tooFewIncidents() throws {
        var input = HotSpotInput(kind: .incidents)
        for i in 0..<59 { input.append(x: Double(i), y: 0) }
        #expect(throws: HotSpotError.tooFewIncidents(count: 59, minimum: 60)) {
            try HotSpotAnalysis().run(input)
        }
        input.append(x: 59, y: 0)
        // 60 incidents in 6 cells of 10.
        #expect(throws: HotSpotError.tooFewFeatures(count: 6, minimum: 30, what: "fishnet cells with incidents")) {
            try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 10), distanceBand: 20)).run(input)
        }
    }

    /// Values without variance (≤ 1e-12) are refused with a clear error.
    @Test func zeroVariance() throws {
        let data = Self.grid(6)
        let input = Oracles.weighted(data.x, data.y, data.values.map { _ in 4.0 })
        #expect(throws: HotSpotError.zeroVariance(variance: 0)) {
            try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15)).run(input)
        }
        #expect(HotSpotError.zeroVariance(variance: 0).description.contains("do not vary"))
        // Every incident in its own cell: all counts 1.
        var incidents = HotSpotInput(kind: .incidents)
        for i in data.x.indices { incidents.append(x: data.x[i] + 5, y: data.y[i] + 5) }
        #expect(throws: HotSpotError.zeroVariance(variance: 0)) {
            try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 10), distanceBand: 15,
                                                        minimumIncidents: 30)).run(incidents)
        }
    }

    /// A feature with no neighbour but itself gets null z and p, bin 0, NNeighbors 0, and is counted.
    @Test func loneFeature() throws {
        var data = Self.grid(6)
        data.x.append(1000)
        data.y.append(1000)
        data.values.append(50)
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15))
            .run(Oracles.weighted(data.x, data.y, data.values))
        let lone = result.features[36]
        #expect(lone.zScore == nil && lone.pValue == nil && lone.bin == 0 && lone.neighborCount == 0)
        #expect(result.summary.withoutNeighbors == 1)
        #expect(result.features[0].zScore != nil)
    }

    /// Coincident points are each other's neighbours (distance 0), share z, and a pair on its own is defined.
    @Test func duplicatePoints() throws {
        var data = Self.grid(6)
        data.x += [1000, 1000, 1000]
        data.y += [1000, 1000, 1000]
        data.values += [50, 20, 30]
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15, fdr: false))
            .run(Oracles.weighted(data.x, data.y, data.values))
        let trio = result.features[36...]
        #expect(trio.allSatisfy { $0.neighborCount == 2 })
        #expect(Set(trio.map(\.zScore)).count == 1)
        let oracle = Oracles.giStar(x: data.x, y: data.y, values: data.values, band: 15)
        #expect(abs((trio.first!.zScore ?? 0) - (oracle[36].z ?? 1)) < 1e-9)
        #expect(result.summary.locationCount == 37 && result.summary.featureCount == 39)
    }

    /// Missing geometry, non-finite coordinates, missing and NaN values are excluded and counted by reason.
    @Test func exclusionsAreCounted() throws {
        let data = Self.grid(6)
        var input = HotSpotInput(kind: .weighted)
        for i in data.x.indices { input.append(x: data.x[i], y: data.y[i], value: data.values[i]) }
        let kept1 = input.append(x: nil, y: 3, value: 1)
        #expect(!kept1)
        let kept2 = input.append(x: 3, y: nil, value: 1)
        #expect(!kept2)
        let kept3 = input.append(x: .nan, y: 3, value: 1)
        #expect(!kept3)
        let kept4 = input.append(x: 3, y: .infinity, value: 1)
        #expect(!kept4)
        let kept5 = input.append(x: 3, y: 3, value: nil)
        #expect(!kept5)
        let kept6 = input.append(x: 3, y: 3, value: .nan)
        #expect(!kept6)
        let kept7 = input.append(x: 3, y: 3, value: -.infinity)
        #expect(!kept7)
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15)).run(input)
        let excluded = result.summary.excluded
        #expect(excluded.noGeometry == 2 && excluded.invalidCoordinate == 2 && excluded.missingValue == 1 && excluded.invalidValue == 2)
        #expect(excluded.total == 7 && result.summary.recordCount == 43 && result.summary.featureCount == 36)
        var geographic = HotSpotInput(kind: .incidents, coordinates: .geographic)
        let kept8 = geographic.append(x: 181, y: 0)
        #expect(!kept8)
        let kept9 = geographic.append(x: 0, y: -90.5)
        #expect(!kept9)
        let kept10 = geographic.append(x: -180, y: 90)
        #expect(kept10)
        #expect(geographic.excluded.invalidCoordinate == 2)
        var capped = HotSpotInput(kind: .incidents, maximumCount: 2)
        for i in 0..<5 { capped.append(x: Double(i), y: 0) }
        #expect(capped.count == 2 && capped.excluded.overLimit == 3)
        #expect(excluded.nonZero.map(\.reason) == ["noGeometry", "invalidCoordinate", "missingValue", "invalidValue"])
    }

    /// Invalid options and a band beyond the data's extent are refused, naming the option.
    @Test func invalidOptions() throws {
        let data = Self.grid(6)
        let input = Oracles.weighted(data.x, data.y, data.values)
        for band in [0.0, -3, .nan, .infinity] {
            #expect(throws: HotSpotError.self) { try HotSpotAnalysis(options: HotSpotOptions(distanceBand: band)).run(input) }
        }
        #expect(throws: HotSpotError.bandExceedsExtent(band: 51, extent: 50)) {
            try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 51)).run(input)
        }
        var incidents = HotSpotInput(kind: .incidents)
        for i in data.x.indices { incidents.append(x: data.x[i], y: data.y[i]) }
        #expect(throws: HotSpotError.invalidOption(name: "cellSize", value: "0.0", reason: "must be a positive finite distance")) {
            try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 0))).run(incidents)
        }
        #expect(throws: HotSpotError.fishnetTooLarge(columns: 5e10 + 1, rows: 5e10 + 1, limit: Fishnet.maximumDimension)) {
            try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 1e-9), force: true)).run(incidents)
        }
    }

    /// All features at one location: a chosen band is impossible, said plainly.
    @Test func coincidentLocations() throws {
        let input = Oracles.weighted([Double](repeating: 5, count: 40), [Double](repeating: 5, count: 40), (0..<40).map(Double.init))
        #expect(throws: HotSpotError.coincidentLocations(count: 40)) { try HotSpotAnalysis().run(input) }
    }

    /// The monitor's stop check ends a run with CancellationError; progress rises to 1 through the stages.
    @Test func cancellationAndProgress() throws {
        let data = Oracles.randomPoints(count: 20_000, side: 1000, seed: 5)
        let input = Oracles.weighted(data.x, data.y, data.values)
        let calls = Counter()
        let stopping = HotSpotMonitor(shouldStop: { calls.increment() > 3 }, pollInterval: 1000)
        #expect(throws: CancellationError.self) { try HotSpotAnalysis().run(input, monitor: stopping) }
        let seen = Recorder()
        let watching = HotSpotMonitor(progress: { fraction, stage in seen.record(fraction, stage) }, pollInterval: 1000)
        _ = try HotSpotAnalysis().run(input, monitor: watching)
        let fractions = seen.fractions
        #expect(fractions.first == 0 && fractions.last == 1)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(seen.stages.contains(.choosingDistanceBand) && seen.stages.contains(.computingGiStar))
    }
}

/// A thread-safe counter for monitor closures.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// Records progress reports.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Double, HotSpotMonitor.Stage)] = []
    func record(_ fraction: Double, _ stage: HotSpotMonitor.Stage) {
        lock.lock()
        defer { lock.unlock() }
        items.append((fraction, stage))
    }
    var fractions: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return items.map(\.0)
    }
    var stages: [HotSpotMonitor.Stage] {
        lock.lock()
        defer { lock.unlock() }
        return items.map(\.1)
    }
}

