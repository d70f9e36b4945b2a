import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots

@Suite("Gi_Bin: confidence levels and FDR", .bounded)
struct SignificanceTests {
    static func analyse(seed: UInt64, fdr: Bool) throws -> HotSpotResult {
        let data = Oracles.randomPoints(count: 2000, side: 1000, seed: seed)
        return try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 70, fdr: fdr))
            .run(Oracles.weighted(data.x, data.y, data.values))
    }

    /// With FDR, bins equal Benjamini–Hochberg at 0.10/0.05/0.01 computed here (statsmodels' fdr_bh rule).
    @Test(arguments: [UInt64(11), 12, 13])
    func fdrMatchesBenjaminiHochberg(seed: UInt64) throws {
        let result = try Self.analyse(seed: seed, fdr: true)
        let expected = Oracles.fdrBins(z: result.features.map(\.zScore), p: result.features.map(\.pValue))
        #expect(result.features.map(\.bin) == expected)
        #expect(result.summary.bins.hot > 50 && result.summary.bins.cold > 50)
        #expect(result.summary.fdr)
    }

    /// Without FDR, a bin is the highest level whose α the p-value does not exceed, signed like z.
    @Test func plainBins() throws {
        let result = try Self.analyse(seed: 14, fdr: false)
        for feature in result.features {
            guard let p = feature.pValue, let z = feature.zScore else {
                #expect(feature.bin == 0)
                continue
            }
            let level: Int8 = p <= 0.01 ? 3 : p <= 0.05 ? 2 : p <= 0.10 ? 1 : 0
            #expect(feature.bin == (z > 0 ? level : -level))
        }
    }

    /// FDR bins never exceed the uncorrected bins in magnitude, keep their sign, and leave z and p unchanged.
    @Test func fdrNeverExceedsPlain() throws {
        let plain = try Self.analyse(seed: 15, fdr: false)
        let corrected = try Self.analyse(seed: 15, fdr: true)
        var fewer = 0
        for (a, b) in zip(plain.features, corrected.features) {
            #expect(abs(Int(b.bin)) <= abs(Int(a.bin)))
            #expect(b.bin == 0 || (b.bin > 0) == (a.bin > 0))
            #expect(a.zScore == b.zScore && a.pValue == b.pValue)
            if b.bin != a.bin { fewer += 1 }
        }
        #expect(fewer > 0)
        var counts = HotSpotBinCounts()
        for feature in corrected.features { counts[Int(feature.bin)] += 1 }
        #expect(counts == corrected.summary.bins)
    }

    /// The two-sided p stays accurate far in the tails (no 1 − Φ cancellation).
    @Test func tailProbability() {
        // 2·Q(z) for z = 10 and 20 (Abramowitz–Stegun / mpmath values).
        #expect(abs(NormalDistribution.twoSidedP(10) / 1.5239706048320981e-23 - 1) < 1e-12)
        #expect(abs(NormalDistribution.twoSidedP(-20) / 5.507248237212467e-89 - 1) < 1e-12)
        #expect(NormalDistribution.twoSidedP(0) == 1)
        #expect(abs(NormalDistribution.twoSidedP(1.959963984540054) - 0.05) < 1e-15)
    }
}
