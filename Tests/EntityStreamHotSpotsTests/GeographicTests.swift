import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamHotSpots

/// Geographic (WGS84) input is measured in metres: chord lengths on the ellipsoid.
@Suite("Geographic input: distances in metres", .bounded)
struct GeographicTests {
    /// WGS84 radii of curvature written out here: meridian M and prime vertical N at latitude φ.
    static func radii(latitude: Double) -> (meridian: Double, primeVertical: Double) {
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f), s = sin(latitude * .pi / 180)
        let w = (1 - e2 * s * s).squareRoot()
        return (a * (1 - e2) / (w * w * w), a / w)
    }

    /// A 7 × 7 lattice spaced 100 m (east and north) around `latitude`.
    static func lattice(latitude: Double, longitude: Double) -> HotSpotInput {
        let (m, n) = radii(latitude: latitude)
        let dLat = 100 / m * 180 / .pi
        let dLon = 100 / (n * cos(latitude * .pi / 180)) * 180 / .pi
        var input = HotSpotInput(kind: .weighted, coordinates: .geographic)
        for r in 0..<7 {
            for c in 0..<7 {
                input.append(x: longitude + Double(c - 3) * dLon, y: latitude + Double(r - 3) * dLat, value: Double((r * 5 + c * 3) % 7))
            }
        }
        return input
    }

    /// Points 100 m apart at 60°N and at the equator get the same neighbours for a 150 m band
    /// (diagonals at 141 m included, 200 m excluded), hence the same z; in degrees they would not.
    @Test func sameNeighboursAtAnyLatitude() throws {
        let analysis = HotSpotAnalysis(options: HotSpotOptions(distanceBand: 150, fdr: false))
        let north = try analysis.run(Self.lattice(latitude: 60, longitude: 10))
        let equator = try analysis.run(Self.lattice(latitude: 0, longitude: -70))
        #expect(north.features.map(\.neighborCount) == equator.features.map(\.neighborCount))
        #expect(north.features[24].neighborCount == 8 && north.features[0].neighborCount == 3)
        for (a, b) in zip(north.features, equator.features) {
            #expect(abs((a.zScore ?? 0) - (b.zScore ?? 0)) < 1e-12)
        }
        #expect(north.summary.linearUnit == "metres")
        // 140 m: the diagonals (141.4 m) drop out.
        let tight = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 140)).run(Self.lattice(latitude: 60, longitude: 10))
        #expect(tight.features[24].neighborCount == 4)
    }

    /// Two points on the equator 0.001° apart are 2a·sin(Δλ/2) = 111.3195 m apart (the chord), not 0.001.
    @Test func chordOnTheEquator() throws {
        let frame = try PlanarFrame.make(.geographic, x: [0, 0.001], y: [0, 0])
        let p = frame.project(x: 0, y: 0), q = frame.project(x: 0.001, y: 0)
        let d = ((p.e - q.e) * (p.e - q.e) + (p.n - q.n) * (p.n - q.n) + (p.u - q.u) * (p.u - q.u)).squareRoot()
        let chord = 2 * 6_378_137.0 * sin(0.001 * .pi / 180 / 2)
        #expect(abs(d - chord) < 1e-6)
        // Plane points map back to the ellipsoid point they came from.
        let back = try #require(frame.unproject(e: q.e, n: q.n))
        #expect(abs(back.x - 0.001) < 1e-11 && abs(back.y) < 1e-11)
    }

    /// Points either side of the antimeridian are neighbours (about 111 m apart), not 360° apart.
    @Test func acrossTheAntimeridian() throws {
        var input = HotSpotInput(kind: .weighted, coordinates: .geographic)
        for i in 0..<40 {
            let east = i % 2 == 0
            input.append(x: east ? 179.9995 : -179.9995, y: Double(i / 2) * 0.0005, value: Double(i % 5))
        }
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 115)).run(input)
        #expect(result.features[0].neighborCount >= 1)
        #expect(result.features.allSatisfy { $0.neighborCount >= 1 })
    }

    /// Points spread more than 60° from their centre are refused with a message.
    @Test func spanTooLarge() throws {
        var input = HotSpotInput(kind: .weighted, coordinates: .geographic)
        for i in 0..<40 { input.append(x: i % 2 == 0 ? -70 : 80, y: Double(i), value: Double(i)) }
        #expect(throws: HotSpotError.self) { try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 1000)).run(input) }
        let error = HotSpotError.geographicSpanTooLarge(degreesFromCentre: 75, limit: 60)
        #expect(error.description.contains("project the data first"))
    }

    /// A geographic fishnet has cells of the given size in metres, returned as lon/lat polygons.
    @Test func geographicFishnet() throws {
        var input = HotSpotInput(kind: .incidents, coordinates: .geographic)
        let (m, _) = Self.radii(latitude: 45)
        for i in 0..<400 { input.append(x: 5 + Double(i % 20) * 0.001, y: 45 + Double(i / 20) * 0.0007 + Double(i % 3) * 1e-6) }
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 250), distanceBand: 600)).run(input)
        #expect(result.features.reduce(0) { $0 + $1.value } == 400)
        guard case .polygon(let ring) = result.geometry(of: result.features[0]) else { Issue.record("not a polygon"); return }
        // The west side of the first cell runs north for 250 m.
        let height = (ring[1][1] - ring[0][1]) * .pi / 180 * m
        #expect(abs(height - 250) < 0.5)
        #expect(ring.first == ring.last && ring.count == 5)
    }
}
