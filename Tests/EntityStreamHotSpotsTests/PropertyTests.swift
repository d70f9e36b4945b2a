import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots

@Suite("Gi*: properties", .bounded)
struct PropertyTests {
    /// z is invariant to scaling the values and to adding a constant (relative 1e-9).
    @Test(arguments: [(3.7, 0.0), (1.0, 1000.0), (0.001, -5.0), (250.0, 1e6)])
    func zInvariantToAffineValues(scale: Double, offset: Double) throws {
        let data = Oracles.randomPoints(count: 800, side: 500, seed: 21, duplicates: 50)
        let analysis = HotSpotAnalysis(options: HotSpotOptions(distanceBand: 40))
        let base = try analysis.run(Oracles.weighted(data.x, data.y, data.values))
        let moved = try analysis.run(Oracles.weighted(data.x, data.y, data.values.map { $0 * scale + offset }))
        for (a, b) in zip(base.features, moved.features) {
            switch (a.zScore, b.zScore) {
            case (let za?, let zb?): #expect(abs(za - zb) <= 1e-9 * max(1, abs(za)), "\(za) vs \(zb)")
            case (nil, nil): break
            default: Issue.record("defined differently")
            }
            #expect(a.bin == b.bin)
        }
    }

    /// The fishnet counts add up to the incidents, and each incident is in the cell its coordinates say.
    @Test(arguments: [7.0, 33.0, 120.0])
    func fishnetCountsSumToIncidents(cellSize: Double) throws {
        let data = Oracles.randomPoints(count: 3000, side: 1000, seed: 31, duplicates: 300)
        var input = HotSpotInput(kind: .incidents)
        for i in data.x.indices { input.append(x: data.x[i], y: data.y[i]) }
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: cellSize), distanceBand: 150))
            .run(input)
        #expect(result.features.reduce(0) { $0 + $1.value } == Double(data.x.count))
        #expect(result.valueField == "JOIN_COUNT")
        // Cells counted here from the incidents' own extent.
        let minX = data.x.min()!, minY = data.y.min()!
        var expected: [Int: Int] = [:]
        let columns = Int(((data.x.max()! - minX) / cellSize).rounded(.down)) + 1
        for i in data.x.indices {
            let c = Int(((data.x[i] - minX) / cellSize).rounded(.down)), r = Int(((data.y[i] - minY) / cellSize).rounded(.down))
            expected[r * columns + c, default: 0] += 1
        }
        #expect(result.features.count == expected.count)
        for feature in result.features {
            #expect(Double(expected[Int(feature.row) * columns + Int(feature.column)] ?? -1) == feature.value)
            #expect(abs(feature.x - (minX + (Double(feature.column) + 0.5) * cellSize)) < 1e-9)
            #expect(abs(feature.y - (minY + (Double(feature.row) + 0.5) * cellSize)) < 1e-9)
        }
        let keys = result.features.map { Int($0.row) * columns + Int($0.column) }
        #expect(keys == keys.sorted())
    }
}
