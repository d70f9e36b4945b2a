import EntityStreamCore
import StreamSimulator
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("StreetGrid", .bounded)
struct StreetGridTests {
    let sandy = StreetGrid(envelope: FleetConfiguration.sandyEnvelope)

    /// The Sandy grid has streets every 0.01° of longitude and 0.0075° of latitude, all inside the envelope.
    @Test func sandyGridSpacingAndExtent() {
        #expect(sandy.northSouthStreets.count == 30)
        #expect(sandy.eastWestStreets.count == 25)
        #expect(sandy.longitudeSpacing == 0.01)
        #expect(sandy.latitudeSpacing == 0.0075)
        let envelope = FleetConfiguration.sandyEnvelope
        for x in sandy.northSouthStreets { #expect(x >= envelope.xmin && x <= envelope.xmax) }
        for y in sandy.eastWestStreets { #expect(y >= envelope.ymin && y <= envelope.ymax) }
        for (a, b) in zip(sandy.northSouthStreets, sandy.northSouthStreets.dropFirst()) {
            #expect(abs(b - a - 0.01) < 1e-12)
        }
        // Centred: equal margins on both sides.
        let left = sandy.northSouthStreets[0] - envelope.xmin
        let right = envelope.xmax - sandy.northSouthStreets[29]
        #expect(abs(left - right) < 1e-9)
    }

    /// Intersections and points along a street are on a street; points between streets are not.
    @Test func isOnStreet() {
        let x3 = sandy.northSouthStreets[3], y5 = sandy.eastWestStreets[5]
        #expect(sandy.isOnStreet(Point(x: x3, y: y5)))
        #expect(sandy.isOnNorthSouthStreet(Point(x: x3, y: y5 + 0.003)))
        #expect(!sandy.isOnEastWestStreet(Point(x: x3, y: y5 + 0.003)))
        #expect(sandy.isOnEastWestStreet(Point(x: x3 + 0.004, y: y5)))
        #expect(sandy.isOnStreet(Point(x: x3 + 0.004, y: y5)))
        #expect(!sandy.isOnStreet(Point(x: x3 + 0.004, y: y5 + 0.003)))
        #expect(!sandy.isOnStreet(Point(x: x3 + 1e-6, y: y5 + 0.003)))
        #expect(sandy.isOnStreet(Point(x: x3 + 1e-6, y: y5 + 0.003), tolerance: 1e-5))
    }

    /// Points beyond the ends of the streets (even in line with one), or not finite, are not on a street.
    @Test(arguments: [
        Point(x: -112.5, y: 40.6), Point(x: -111.9, y: 41.0), Point(x: .nan, y: 40.6),
        Point(x: -111.9, y: .infinity), Point(x: -112.107417, y: 40.5), Point(x: -112.2, y: 40.544165),
    ])
    func outsideIsNotOnStreet(point: Point) {
        #expect(!sandy.isOnStreet(point, tolerance: 1e-6))
    }

    /// An envelope narrower than one spacing gets two streets on its edges.
    @Test func tinyEnvelopeHasTwoStreetsEachWay() {
        let grid = StreetGrid(envelope: Envelope(xmin: 1, ymin: 2, xmax: 1.004, ymax: 2.001))
        #expect(grid.northSouthStreets == [1, 1.004])
        #expect(grid.eastWestStreets == [2, 2.001])
        #expect(grid.isOnStreet(Point(x: 1.002, y: 2.001)))
    }

    /// Bad spacings fall back to the defaults and the street count is capped.
    @Test func badSpacingsAreSafe() {
        let grid = StreetGrid(envelope: FleetConfiguration.sandyEnvelope, longitudeSpacing: -1, latitudeSpacing: .nan)
        #expect(grid.northSouthStreets == sandy.northSouthStreets)
        #expect(grid.eastWestStreets == sandy.eastWestStreets)
        let dense = StreetGrid(envelope: FleetConfiguration.sandyEnvelope, longitudeSpacing: 1e-12)
        #expect(dense.northSouthStreets.count == 100_000)
        #expect(dense.northSouthStreets.last ?? 0 <= FleetConfiguration.sandyEnvelope.xmax)
        let denormal = StreetGrid(envelope: FleetConfiguration.sandyEnvelope, longitudeSpacing: .leastNormalMagnitude,
                                  latitudeSpacing: .leastNonzeroMagnitude)
        #expect(denormal.northSouthStreets.count == 100_000)
        #expect(denormal.eastWestStreets.count == 100_000)
    }
}

extension StreetGridTests {
    /// The Sandy grid's first streets sit where the centring puts them (the test points above rely on it).
    @Test func sandyFirstStreets() {
        #expect(abs(sandy.northSouthStreets[0] - -112.107417) < 1e-9)
        #expect(abs(sandy.eastWestStreets[1] - 40.544165) < 1e-9)
    }
}
