import EntityStreamCore
import EntityStreamModel

/// One simulated vehicle: where it is on the ``StreetGrid``, which way it
/// faces, whether it is driving or stopped, and its own random stream.
///
/// Motion contract (relied on by ``SnowplowFleet``'s documentation and tests):
/// - The vehicle is always on a street: one coordinate is exactly a street's
///   coordinate, the other (`position`) lies between that street's ends.
/// - Phases (driving / stopped) change only at observation instants, so each
///   interval between two observations is wholly driving or wholly stopped.
/// - While driving an interval of `Δt` seconds at speed `v` mph, it travels
///   exactly `v · 0.44704 · Δt` metres along the streets (measured with
///   ``GroundDistance``), turning only at intersections and never reversing
///   its east–west or north–south direction within one interval. The path is
///   therefore a monotone staircase whose length equals the Manhattan
///   distance between the interval's end points. If, at the grid's corner, no
///   non-reversing way on exists, it stops there and the interval's speed is
///   the distance actually travelled divided by `Δt`.
/// - Heading is the direction of the last movement (0 N, 90 E, 180 S, 270 W).
struct FleetVehicle: Sendable {
    var rng: SplitMix64
    let kind: VehicleKind
    let name: AttributeValue
    let vehicleType: AttributeValue
    let agency: AttributeValue

    /// True: on north–south street `street` (x fixed, `position` is y).
    /// False: on east–west street `street` (y fixed, `position` is x).
    var onNorthSouthStreet: Bool
    var street: Int
    var position: Double
    /// +1 north/east, −1 south/west.
    var direction: Int
    /// Index (among the cross streets) of the next intersection ahead, or of the
    /// intersection the vehicle stands on when `atIntersection`.
    var nextCross: Int
    var atIntersection: Bool
    var heading: Double

    var stopped: Bool
    /// Intervals left in the current phase (a new phase starts when it reaches 0).
    var phaseRemaining: Int
    /// Cruising speed of the current driving phase, mph.
    var cruise: Double
    /// Time of the last observation (or of the virtual one before the first), epoch ms.
    var lastTime: Int64

    static let stoppedShare = 0.22
    static let drivingSeconds = 60.0...480.0
    static let stoppedSeconds = 15.0...150.0

    init(number: Int, seed: UInt64, grid: StreetGrid, rate: Double, firstTime: Int64) {
        var rng = SplitMix64(seed: seed)
        kind = VehicleKind.random(using: &rng)
        name = .string("TRUCK \(number)")
        vehicleType = .string(kind.name)
        agency = .int(rng.chance(0.5) ? 3 : 4)

        onNorthSouthStreet = rng.chance(0.5)
        let streets = onNorthSouthStreet ? grid.northSouthStreets : grid.eastWestStreets
        let crosses = onNorthSouthStreet ? grid.eastWestStreets : grid.northSouthStreets
        street = rng.next(below: streets.count)
        let segment = rng.next(below: crosses.count - 1)
        let fraction = rng.nextDouble()
        let low = crosses[segment], high = crosses[segment + 1]
        position = min(max(low + fraction * (high - low), low), high)
        direction = rng.chance(0.5) ? 1 : -1
        nextCross = direction > 0 ? segment + 1 : segment
        atIntersection = position == crosses[nextCross]
        heading = Self.heading(northSouth: onNorthSouthStreet, direction: direction)

        stopped = rng.chance(Self.stoppedShare)
        cruise = rng.uniform(kind.speedRange.lowerBound, kind.speedRange.upperBound)
        let phaseLength = Self.intervals(Self.duration(stopped ? Self.stoppedSeconds : Self.drivingSeconds, using: &rng), rate: rate)
        phaseRemaining = 1 + rng.next(below: phaseLength)
        lastTime = firstTime
        self.rng = rng
    }

    /// The current position.
    func point(on grid: StreetGrid) -> (x: Double, y: Double) {
        onNorthSouthStreet
            ? (grid.northSouthStreets[street], position)
            : (position, grid.eastWestStreets[street])
    }

    /// Simulates the interval of `milliseconds` ending now; returns the speed (mph)
    /// to report: the distance travelled in the interval divided by its duration.
    mutating func advance(milliseconds: Int64, rate: Double, grid: StreetGrid) -> Double {
        if phaseRemaining <= 0 { startNextPhase(rate: rate) }
        phaseRemaining -= 1
        guard !stopped, milliseconds > 0 else { return 0 }
        let range = kind.speedRange
        let jittered = min(max(cruise + rng.uniform(-2, 2), range.lowerBound), range.upperBound)
        let speed = (jittered * 10).rounded() / 10
        let seconds = Double(milliseconds) / 1000
        let planned = speed * GroundDistance.metersPerSecondPerMPH * seconds
        let travelled = drive(meters: planned, grid: grid)
        if travelled.complete { return speed }
        return travelled.meters / seconds / GroundDistance.metersPerSecondPerMPH
    }

    private mutating func startNextPhase(rate: Double) {
        stopped.toggle()
        if stopped {
            phaseRemaining = Self.intervals(Self.duration(Self.stoppedSeconds, using: &rng), rate: rate)
        } else {
            cruise = rng.uniform(kind.speedRange.lowerBound, kind.speedRange.upperBound)
            phaseRemaining = Self.intervals(Self.duration(Self.drivingSeconds, using: &rng), rate: rate)
        }
    }

    private static func duration(_ range: ClosedRange<Double>, using rng: inout SplitMix64) -> Double {
        rng.uniform(range.lowerBound, range.upperBound)
    }

    /// Number of report intervals (at least 1) lasting about `seconds`.
    private static func intervals(_ seconds: Double, rate: Double) -> Int {
        max(1, Int((seconds * rate).rounded()))
    }

    /// Moves up to `meters` along the streets (see the type's contract). Returns the
    /// distance actually travelled and whether it was all of `meters`.
    private mutating func drive(meters: Double, grid: StreetGrid) -> (meters: Double, complete: Bool) {
        var remaining = meters
        var travelled = 0.0
        // Direction already used on each axis in this interval (0 = not yet).
        var usedEastWest = 0, usedNorthSouth = 0
        while remaining > 0 {
            if atIntersection {
                guard depart(grid: grid, usedEastWest: usedEastWest, usedNorthSouth: usedNorthSouth) else {
                    return (travelled, false)
                }
            }
            if onNorthSouthStreet { usedNorthSouth = direction } else { usedEastWest = direction }
            let crosses = onNorthSouthStreet ? grid.eastWestStreets : grid.northSouthStreets
            let metersPerDegree = onNorthSouthStreet
                ? GroundDistance.metersPerDegreeLatitude
                : grid.metersPerDegreeLongitude[street]
            let target = crosses[nextCross]
            let gap = abs(target - position) * metersPerDegree
            if remaining < gap {
                let moved = position + Double(direction) * (remaining / metersPerDegree)
                position = direction > 0 ? min(moved, target) : max(moved, target)
                travelled += remaining
                remaining = 0
                if position == target { atIntersection = true }
            } else {
                position = target
                travelled += gap
                remaining -= gap
                atIntersection = true
            }
        }
        return (travelled, true)
    }

    /// At an intersection, picks the way on: straight ahead (weight 0.6), left or right
    /// (0.2 each), a U-turn only when nothing else exists; never a way that reverses a
    /// direction used earlier in the interval. False when no way is allowed.
    private mutating func depart(grid: StreetGrid, usedEastWest: Int, usedNorthSouth: Int) -> Bool {
        let crossCount = onNorthSouthStreet ? grid.eastWestStreets.count : grid.northSouthStreets.count
        let streetCount = onNorthSouthStreet ? grid.northSouthStreets.count : grid.eastWestStreets.count
        let usedAlong = onNorthSouthStreet ? usedNorthSouth : usedEastWest
        let usedAcross = onNorthSouthStreet ? usedEastWest : usedNorthSouth

        // Candidates: (turn onto the cross street?, new direction, weight).
        var options: [(turn: Bool, direction: Int, weight: Double)] = []
        options.reserveCapacity(3)
        let straight = nextCross + direction
        if straight >= 0, straight < crossCount, usedAlong == 0 || usedAlong == direction {
            options.append((false, direction, 0.6))
        }
        for turnDirection in [1, -1] {
            let next = street + turnDirection
            if next >= 0, next < streetCount, usedAcross == 0 || usedAcross == turnDirection {
                options.append((true, turnDirection, 0.2))
            }
        }
        if options.isEmpty {
            let back = nextCross - direction
            if back >= 0, back < crossCount, usedAlong == 0 || usedAlong == -direction {
                options.append((false, -direction, 1))
            }
        }
        guard !options.isEmpty else { return false }

        let total = options.reduce(0) { $0 + $1.weight }
        var u = rng.nextDouble() * total
        var choice = options[options.count - 1]
        for option in options {
            if u < option.weight { choice = option; break }
            u -= option.weight
        }

        if choice.turn {
            let crossStreet = nextCross
            let crossing = onNorthSouthStreet ? grid.northSouthStreets[street] : grid.eastWestStreets[street]
            let oldStreet = street
            onNorthSouthStreet.toggle()
            street = crossStreet
            position = crossing
            direction = choice.direction
            nextCross = oldStreet + choice.direction
        } else {
            nextCross += choice.direction
            direction = choice.direction
        }
        atIntersection = false
        heading = Self.heading(northSouth: onNorthSouthStreet, direction: direction)
        return true
    }

    static func heading(northSouth: Bool, direction: Int) -> Double {
        northSouth ? (direction > 0 ? 0 : 180) : (direction > 0 ? 90 : 270)
    }
}
