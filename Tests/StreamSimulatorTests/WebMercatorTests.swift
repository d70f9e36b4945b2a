import EntityStreamCore
import Foundation
import StreamSimulator
import EntityStreamTestSupport
import Testing

@Suite("WebMercator", .bounded)
struct WebMercatorTests {
    /// Known points project to the reference metres (x = R·λ, y = R·ln tan(π/4 + φ/2), computed independently).
    @Test(arguments: [
        (0.0, 0.0, 0.0, 0.0),
        (-111.8910, 40.7608, -12_455_649.144_350_175, 4_977_123.483_199_634),
        (180, 85.05112878, 20_037_508.342_789_244, 20_037_508.343_038_812),
        (-180, -85.05112878, -20_037_508.342_789_244, -20_037_508.343_038_823),
    ] as [(Double, Double, Double, Double)])
    func knownPoints(longitude: Double, latitude: Double, x: Double, y: Double) {
        let projected = WebMercator.project(Point(x: longitude, y: latitude, wkid: 4326))
        #expect(abs(projected.x - x) < 1e-6)
        #expect(abs(projected.y - y) < 1e-6)
        #expect(projected.wkid == 3857)
    }

    /// Latitudes beyond ±85.05112878° are clamped to the square map's edge.
    @Test func clampsLatitude() {
        let north = WebMercator.project(Point(x: 0, y: 90))
        let south = WebMercator.project(Point(x: 0, y: -89.5))
        #expect(abs(north.y - 20_037_508.343_038_812) < 1e-6)
        #expect(abs(south.y + 20_037_508.343_038_823) < 1e-6)
        #expect(north.y.isFinite && south.y.isFinite)
    }

    /// z and m are kept; the wkid is set to the target's.
    @Test func keepsZAndM() {
        let point = Point(x: 10, y: 20, z: 123.5, m: -4, wkid: 4326)
        let projected = WebMercator.project(point)
        #expect(projected.z == 123.5 && projected.m == -4 && projected.wkid == 3857)
        let back = WebMercator.unproject(projected)
        #expect(back.z == 123.5 && back.m == -4 && back.wkid == 4326)
    }

    /// project then unproject returns the point within 1e-9 degrees, over random points.
    @Test func roundTrip() {
        var rng = SplitMix64(seed: 3857)
        for _ in 0..<100_000 {
            let point = Point(x: rng.uniform(-180, 180), y: rng.uniform(-85.05112878, 85.05112878), wkid: 4326)
            let back = WebMercator.unproject(WebMercator.project(point))
            #expect(abs(back.x - point.x) < 1e-9)
            #expect(abs(back.y - point.y) < 1e-9)
        }
    }

    /// unproject inverts project for metres too (within a micrometre).
    @Test func inverseRoundTrip() {
        var rng = SplitMix64(seed: 4326)
        for _ in 0..<10_000 {
            let point = Point(x: rng.uniform(-2e7, 2e7), y: rng.uniform(-2e7, 2e7), wkid: 3857)
            let again = WebMercator.project(WebMercator.unproject(point))
            #expect(abs(again.x - point.x) < 1e-6)
            #expect(abs(again.y - point.y) < 1e-6)
        }
    }

    /// Envelopes project corner by corner and come back; the Sandy envelope lands where expected.
    @Test func envelopes() {
        let sandy = FleetConfiguration.sandyEnvelope
        let projected = WebMercator.project(sandy)
        #expect(projected.wkid == 3857)
        #expect(abs(projected.xmin - 6_378_137 * -112.110052 * Double.pi / 180) < 1e-6)
        #expect(abs(projected.ymax - 6_378_137 * log(tan(Double.pi / 4 + 40.718083 * Double.pi / 360))) < 1e-6)
        #expect(projected.xmin < projected.xmax && projected.ymin < projected.ymax)
        let back = WebMercator.unproject(projected)
        #expect(back.wkid == 4326)
        for (a, b) in [(back.xmin, sandy.xmin), (back.ymin, sandy.ymin), (back.xmax, sandy.xmax), (back.ymax, sandy.ymax)] {
            #expect(abs(a - b) < 1e-9)
        }
    }

    /// The Web Mercator wkids are recognised, others are not.
    @Test func wkids() {
        #expect(WebMercator.wkids == [3857, 102100, 102113, 900913])
        #expect(WebMercator.isWebMercator(102100))
        #expect(!WebMercator.isWebMercator(4326))
        #expect(!WebMercator.isWebMercator(nil))
    }

    /// Non-finite input gives non-finite output, never a trap.
    @Test func nonFiniteInput() {
        let projected = WebMercator.project(Point(x: .nan, y: .nan))
        #expect(projected.x.isNaN && projected.y.isNaN)
        let unprojected = WebMercator.unproject(Point(x: .infinity, y: -.infinity))
        #expect(unprojected.x.isInfinite)
        #expect(unprojected.y == -90)
    }
}
