import EntityStreamCore
import Foundation
import StreamSimulator
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private typealias S = FleetTestSupport

/// Ten minutes of a 50-vehicle fleet at one report per second per vehicle.
private let tenMinutes = S.run(vehicles: 50, seed: 7, rate: 1, count: 50 * 600)

@Suite("SnowplowFleet", .bounded)
struct SnowplowFleetTests {
    /// The schema lists the SandyVehicles fields in order, typed, with vehiclename as the track id.
    @Test func schemaMatchesSandyVehicles() {
        let schema = SnowplowFleet.schema
        #expect(schema.fields.map(\.name) == ["vehiclename", "vehicletype", "agency", "speed", "heading",
                                              "point_x", "point_y", "lastupdate"])
        #expect(schema.fields.map(\.type) == [.string, .string, .integer, .double, .double, .double, .double, .date])
        #expect(schema.trackIDField?.name == "vehiclename")
        #expect(SnowplowFleet.serviceName == "SandyVehicles")
    }

    /// The same configuration and start time give the identical sequence.
    @Test func deterministicForASeed() {
        let a = S.run(seed: 42, count: 20_000)
        let b = S.run(seed: 42, count: 20_000)
        #expect(a == b)
    }

    /// Different seeds give different sequences (positions and attributes), same times.
    @Test(arguments: [(UInt64(1), UInt64(2)), (UInt64(0), UInt64.max), (UInt64(7), UInt64(8))] as [(UInt64, UInt64)])
    func differentSeedsDiffer(_ first: UInt64, _ second: UInt64) {
        let a = S.run(seed: first, count: 5_000)
        let b = S.run(seed: second, count: 5_000)
        #expect(a != b)
        #expect(a.map(\.receivedAt) == b.map(\.receivedAt))
        let samePositions = zip(a, b).filter { $0.geometry == $1.geometry }.count
        #expect(samePositions < 50)
    }

    /// Every report's geometry lies inside the envelope and on a street; point_x/point_y equal it.
    @Test func positionsInsideEnvelopeAndOnStreets() throws {
        let fleet = SnowplowFleet(configuration: FleetConfiguration(vehicles: 1, seed: 7), startTime: 0)
        let envelope = FleetConfiguration.sandyEnvelope
        for observation in tenMinutes {
            let point = try #require(observation.geometry)
            #expect(point.wkid == 4326)
            #expect(envelope.contains(point))
            #expect(fleet.grid.isOnStreet(point))
            #expect(S.double(observation, "point_x") == point.x)
            #expect(S.double(observation, "point_y") == point.y)
        }
    }

    /// Vehicles wander: over ten minutes they cover many distinct streets and most move a block or more.
    @Test func vehiclesTravelAcrossTheGrid() throws {
        var movedFar = 0
        for track in S.tracks(tenMinutes).values {
            let first = try #require(track.first?.geometry), last = try #require(track.last?.geometry)
            if S.manhattanMeters(first, last) > 800 { movedFar += 1 }
        }
        #expect(movedFar >= 25)
    }

    /// Over every consecutive pair of one vehicle's reports (50 vehicles, 10 minutes), the
    /// distance along the grid (Manhattan metres) divided by the elapsed time is the reported speed.
    @Test func speedMatchesDisplacement() throws {
        var checked = 0, straight = 0
        for (previous, current) in S.consecutivePairs(tenMinutes) {
            let a = try #require(previous.geometry), b = try #require(current.geometry)
            let seconds = Double(current.receivedAt - previous.receivedAt) / 1000
            let speed = S.double(current, "speed")
            let meters = S.manhattanMeters(a, b)
            if speed == 0 {
                #expect(a == b)
                continue
            }
            let measured = meters / seconds / 0.44704
            #expect(abs(measured - speed) <= 0.001 * speed, "measured \(measured) mph, reported \(speed)")
            // For straight moves also check against the great-circle distance.
            if a.x == b.x || a.y == b.y {
                let chord = haversine(a, b) / seconds / 0.44704
                #expect(abs(chord - speed) <= 0.001 * speed)
                straight += 1
            }
            checked += 1
        }
        #expect(checked > 20_000)
        #expect(straight > 19_000)
    }

    /// Heading is the direction of the last movement along the grid, and is kept while stopped.
    @Test func headingMatchesDirectionOfTravel() throws {
        let grid = SnowplowFleet(configuration: FleetConfiguration(), startTime: 0).grid
        var turns = 0
        for (previous, current) in S.consecutivePairs(tenMinutes) {
            let a = try #require(previous.geometry), b = try #require(current.geometry)
            let heading = S.double(current, "heading")
            #expect([0.0, 90, 180, 270].contains(heading))
            let dx = b.x - a.x, dy = b.y - a.y
            switch (dx == 0, dy == 0) {
            case (true, true):
                #expect(heading == S.double(previous, "heading"))
            case (true, false):
                #expect(heading == (dy > 0 ? 0 : 180))
            case (false, true):
                #expect(heading == (dx > 0 ? 90 : 270))
            case (false, false):
                // Turned at an intersection: the last leg ends at b along the heading's axis.
                turns += 1
                if heading == 0 || heading == 180 {
                    #expect(heading == (dy > 0 ? 0 : 180))
                    #expect(grid.isOnNorthSouthStreet(b))
                    #expect(grid.isOnEastWestStreet(Point(x: b.x, y: a.y)))
                } else {
                    #expect(heading == (dx > 0 ? 90 : 270))
                    #expect(grid.isOnEastWestStreet(b))
                    #expect(grid.isOnNorthSouthStreet(Point(x: a.x, y: b.y)))
                }
            }
        }
        #expect(turns > 10)
    }

    /// A meaningful fraction (15–30 %) of reports are stopped (speed exactly 0), for several seeds.
    @Test(arguments: [UInt64(7), 1, 2, 3, 12345])
    func meaningfulFractionStopped(seed: UInt64) {
        let observations = seed == 7 ? tenMinutes : S.run(vehicles: 50, seed: seed, count: 50 * 600)
        let stopped = observations.filter { S.double($0, "speed") == 0 }.count
        let fraction = Double(stopped) / Double(observations.count)
        #expect(fraction >= 0.15 && fraction <= 0.30, "stopped fraction \(fraction)")
    }

    /// Moving speeds are plausible for plows: 10–45 mph, and vary between reports.
    @Test func movingSpeedsArePlausible() {
        let moving = tenMinutes.map { S.double($0, "speed") }.filter { $0 > 0 }
        #expect(moving.allSatisfy { $0 <= 45 })
        let slow = moving.filter { $0 < 10 }.count
        #expect(Double(slow) < 0.001 * Double(moving.count))
        #expect(Set(moving).count > 100)
    }

    /// Times never decrease overall, start at the start time, and lastupdate equals receivedAt.
    @Test func timesIncrease() {
        #expect(tenMinutes.first?.receivedAt == 1_767_225_600_000)
        for (a, b) in zip(tenMinutes, tenMinutes.dropFirst()) {
            #expect(a.receivedAt <= b.receivedAt)
        }
        for observation in tenMinutes {
            #expect(observation.attribute(7) == .date(milliseconds: observation.receivedAt))
        }
    }

    /// Each vehicle reports at the configured rate: every 1/rate seconds (±1 ms rounding), staggered.
    @Test(arguments: [1.0, 0.2, 4, 0.05])
    func eachVehicleReportsAtTheRate(rate: Double) {
        let vehicles = 20, rounds = 50
        let observations = S.run(vehicles: vehicles, seed: 3, rate: rate, count: vehicles * rounds)
        let tracks = S.tracks(observations)
        #expect(tracks.count == vehicles)
        let period = 1000 / rate
        for track in tracks.values {
            #expect(track.count == rounds)
            for (a, b) in zip(track, track.dropFirst()) {
                #expect(abs(Double(b.receivedAt - a.receivedAt) - period) <= 1)
            }
        }
        // Staggered: the vehicles' first reports spread over one period.
        let firsts = Set(observations.prefix(vehicles).map(\.receivedAt))
        #expect(firsts.count == vehicles)
        #expect(Double(observations[vehicles - 1].receivedAt - observations[0].receivedAt) < period)
    }

    /// Vehicles are TRUCK 1 … TRUCK n in report order, with a fixed agency (3 or 4) and type each.
    @Test func vehicleAttributes() {
        let observations = S.run(vehicles: 30, seed: 9, count: 30 * 20)
        #expect(observations.prefix(30).compactMap { S.string($0, "vehiclename") } == (1...30).map { "TRUCK \($0)" })
        let types: Set<String> = ["Plow", "Plow/Salter", "Grader", "Pickup"]
        var agencies: Set<Int64> = []
        for track in S.tracks(observations).values {
            #expect(Set(track.compactMap { S.int($0, "agency") }).count == 1)
            #expect(Set(track.compactMap { S.string($0, "vehicletype") }).count == 1)
            agencies.formUnion(track.compactMap { S.int($0, "agency") })
            #expect(track.allSatisfy { types.contains(S.string($0, "vehicletype") ?? "") })
        }
        #expect(agencies == [3, 4])
    }

    /// A vehicle's behaviour depends only on the seed and its number, not on the fleet size's other vehicles' draws.
    @Test func vehicleAttributesIndependentOfFleetSize() {
        let small = S.run(vehicles: 5, seed: 11, count: 5)
        let large = S.run(vehicles: 40, seed: 11, count: 5)
        for (a, b) in zip(small, large) {
            #expect(a.attributes[0...2] == b.attributes[0...2])
            #expect(a.geometry == b.geometry)
        }
    }

    /// Out-of-range configurations are normalized instead of failing: ≥ 1 vehicle, a finite rate, a usable envelope.
    @Test func configurationIsNormalized() {
        var fleet = SnowplowFleet(configuration: FleetConfiguration(
            vehicles: 0, seed: 1, ratePerVehicle: .nan,
            envelope: Envelope(xmin: .nan, ymin: 0, xmax: 1, ymax: 1)), startTime: 0)
        #expect(fleet.configuration.vehicles == 1)
        #expect(fleet.configuration.ratePerVehicle == 1)
        #expect(fleet.configuration.envelope == FleetConfiguration.sandyEnvelope)
        let observations = fleet.next(count: 10)
        #expect(observations.map(\.receivedAt) == (0..<10).map { Int64($0) * 1000 })

        let reversed = FleetConfiguration(envelope: Envelope(xmin: 10, ymin: 50, xmax: 9, ymax: 49)).normalized
        #expect(reversed.envelope == Envelope(xmin: 9, ymin: 49, xmax: 10, ymax: 50, wkid: 4326))
        #expect(FleetConfiguration(vehicles: -5, ratePerVehicle: 1e9).normalized.ratePerVehicle == 1000)
        #expect(FleetConfiguration(vehicles: -5).normalized.vehicles == 1)
    }

    /// A custom envelope is honoured: vehicles stay on its grid and speed still matches displacement,
    /// even on a tiny grid at a low rate where a vehicle is cut short at a corner (speed below its range).
    @Test(arguments: [
        Envelope(xmin: -0.1, ymin: 51.4, xmax: 0.05, ymax: 51.55),
        Envelope(xmin: 10, ymin: 10, xmax: 10.002, ymax: 10.0015),
    ])
    func customEnvelope(envelope: Envelope) throws {
        var cutShort = 0
        defer { if envelope.xmax - envelope.xmin < 0.01 { #expect(cutShort > 100) } }
        for rate in [1.0, 0.001] {
            var fleet = SnowplowFleet(configuration: FleetConfiguration(vehicles: 10, seed: 5, ratePerVehicle: rate,
                                                                        envelope: envelope), startTime: 0)
            for (previous, current) in S.consecutivePairs(fleet.next(count: 3000)) {
                let a = try #require(previous.geometry), b = try #require(current.geometry)
                #expect(envelope.contains(b))
                #expect(fleet.grid.isOnStreet(b))
                let seconds = Double(current.receivedAt - previous.receivedAt) / 1000
                let speed = S.double(current, "speed")
                #expect(abs(S.manhattanMeters(a, b) / seconds / 0.44704 - speed) <= 0.01 * max(speed, 0.01))
                if speed > 0 && speed < 10 { cutShort += 1 }
            }
        }
    }

    /// nextTime and emittedCount describe the stream's position.
    @Test func progressAccessors() {
        var fleet = SnowplowFleet(configuration: FleetConfiguration(vehicles: 4, seed: 1, ratePerVehicle: 2), startTime: 100)
        #expect(fleet.emittedCount == 0)
        #expect(fleet.nextTime == 100)
        _ = fleet.next(count: 5)
        #expect(fleet.emittedCount == 5)
        #expect(fleet.nextTime == 100 + 500 + 125)
        #expect(fleet.vehicleNames == ["TRUCK 1", "TRUCK 2", "TRUCK 3", "TRUCK 4"])
    }
}

private func haversine(_ a: Point, _ b: Point) -> Double {
    let r = 6_371_008.8, rad = Double.pi / 180
    let dPhi = (b.y - a.y) * rad, dLambda = (b.x - a.x) * rad
    let h = sin(dPhi / 2) * sin(dPhi / 2) + cos(a.y * rad) * cos(b.y * rad) * sin(dLambda / 2) * sin(dLambda / 2)
    return 2 * r * asin(min(1, h.squareRoot()))
}
