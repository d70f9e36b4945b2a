import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots

@Suite("Gi*: engine against brute force", .bounded)
struct BruteForceTests {
    /// On seeded random data with duplicated points, z, p and NNeighbors equal an O(n²) Gi* written here (z to 1e-9).
    @Test(arguments: [(UInt64(1), 60.0), (2, 25.0), (3, 140.0)])
    func randomData(seed: UInt64, band: Double) throws {
        let data = Oracles.randomPoints(count: 1500, side: 1000, seed: seed, duplicates: 200)
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: band, fdr: false))
            .run(Oracles.weighted(data.x, data.y, data.values))
        let expected = Oracles.giStar(x: data.x, y: data.y, values: data.values, band: band)
        #expect(result.features.count == expected.count)
        var defined = 0
        for (feature, oracle) in zip(result.features, expected) {
            #expect(Int(feature.neighborCount) == oracle.neighbors)
            switch (feature.zScore, oracle.z) {
            case (let z?, let o?):
                defined += 1
                #expect(abs(z - o) < 1e-9, "z \(z) vs \(o)")
                #expect(abs((feature.pValue ?? -1) - Oracles.twoSidedP(o)) < 1e-12)
            case (nil, nil):
                #expect(feature.pValue == nil && feature.bin == 0)
            default:
                Issue.record("z \(String(describing: feature.zScore)) vs oracle \(String(describing: oracle.z))")
            }
        }
        #expect(defined > 1000)
        #expect(result.summary.distanceBand.choice == .given)
    }

    /// Records keep their order and record numbers; the features echo the input coordinates and values.
    @Test func featuresEchoInput() throws {
        let data = Oracles.randomPoints(count: 300, side: 100, seed: 9)
        var input = HotSpotInput(kind: .weighted)
        for i in data.x.indices {
            if i % 50 == 7 { input.append(x: nil, y: 1, value: 1) }
            input.append(x: data.x[i], y: data.y[i], value: data.values[i])
        }
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 10)).run(input)
        #expect(result.features.map(\.x) == data.x)
        #expect(result.features.map(\.y) == data.y)
        #expect(result.features.map(\.value) == data.values)
        #expect(result.summary.excluded.noGeometry == 6)
        #expect(result.features[10].recordNumber == 11)
        #expect(result.valueField == nil)
        #expect(result.geometry(of: result.features[0]) == .point(x: data.x[0], y: data.y[0]))
    }
}
