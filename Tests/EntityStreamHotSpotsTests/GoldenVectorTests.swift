import EntityStreamTestSupport
import Testing
@testable import EntityStreamHotSpots

/// The esda `G_Local` doctest from the reference (§1.4): points
/// (10,10),(20,10),(40,10),(15,20),(30,20),(30,30), y = 2, 3, 3.2, 5, 8, 7,
/// band 15, `star=True`, `transform='B'`. Full-precision z and p are esda
/// 2.9.0's output for exactly that call (they round to the reference's
/// 8-decimal vector).
@Suite("Gi*: the esda golden vector", .bounded)
struct GoldenVectorTests {
    static let x: [Double] = [10, 20, 40, 15, 30, 30]
    static let y: [Double] = [10, 10, 10, 20, 20, 30]
    static let values: [Double] = [2, 3, 3.2, 5, 8, 7]
    static let zAt15 = [-1.3972762620115442, -0.2891776156271273, 0.6506496351610379, -0.2891776156271273,
                        1.2345208835198738, 2.024243309389896]
    static let pAt15 = [0.16233051131343845, 0.772445460571115, 0.5152726818237428, 0.772445460571115,
                        0.21700886980079725, 0.042945123419872534]
    /// esda with `threshold=14.999999` (the pair (15,20)–(30,20) at exactly 15 drops out).
    static let zBelow15 = [-1.3972762620115442, -0.2891776156271273, 0.6506496351610379, -1.3972762620115442,
                           0.8675328468813842, 2.024243309389896]

    static func run(band: Double, fdr: Bool) throws -> HotSpotResult {
        let options = HotSpotOptions(distanceBand: band, fdr: fdr, minimumFeatures: 6)
        return try HotSpotAnalysis(options: options).run(Oracles.weighted(x, y, values))
    }

    /// z matches esda to 1e-9 and the reference's 8-decimal vector to 5e-9.
    @Test func zScores() throws {
        let result = try Self.run(band: 15, fdr: false)
        let reference = [-1.39727626, -0.28917762, 0.65064964, -0.28917762, 1.23452088, 2.02424331]
        for (i, feature) in result.features.enumerated() {
            let z = try #require(feature.zScore)
            #expect(abs(z - Self.zAt15[i]) < 1e-9, "z[\(i)] = \(z)")
            #expect(abs(z - reference[i]) < 5e-9)
        }
    }

    /// p is the two-sided normal p: esda's 2·p_norm to 1e-12 and the reference's 4 decimals.
    @Test func pValues() throws {
        let result = try Self.run(band: 15, fdr: false)
        let reference = [0.1623, 0.7724, 0.5153, 0.7724, 0.2170, 0.0429]
        for (i, feature) in result.features.enumerated() {
            let p = try #require(feature.pValue)
            #expect(abs(p - Self.pAt15[i]) < 1e-12)
            #expect(abs(p - reference[i]) < 5e-5)
        }
    }

    /// Without FDR only the last feature is significant (95 %); with FDR none is.
    @Test func bins() throws {
        #expect(try Self.run(band: 15, fdr: false).features.map(\.bin) == [0, 0, 0, 0, 0, 2])
        #expect(try Self.run(band: 15, fdr: true).features.map(\.bin) == [0, 0, 0, 0, 0, 0])
    }

    /// A pair exactly at the band is included: just below 15, elements 4 and 5 (1-based) change to esda's values.
    @Test func bandInclusivity() throws {
        let at = try Self.run(band: 15, fdr: false).features.map { $0.zScore ?? .nan }
        let below = try Self.run(band: 14.999999, fdr: false).features.map { $0.zScore ?? .nan }
        for i in 0..<6 { #expect(abs(below[i] - Self.zBelow15[i]) < 1e-9, "z[\(i)] = \(below[i])") }
        #expect(abs(at[3] - below[3]) > 0.5 && abs(at[4] - below[4]) > 0.3)
        for i in [0, 1, 2, 5] { #expect(at[i] == below[i]) }
    }
}
