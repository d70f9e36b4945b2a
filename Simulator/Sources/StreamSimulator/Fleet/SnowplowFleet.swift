import EntityStreamCore
import EntityStreamModel

/// A deterministic, live-looking snowplow fleet emulating Esri's
/// `SandyVehicles` stream service: a value that yields one observation at a
/// time, in time order across all vehicles.
///
/// Contract:
/// - **Schema** (``schema``): `vehiclename` (string, the track id, "TRUCK 1" …
///   "TRUCK n"), `vehicletype` (string: Plow, Plow/Salter, Grader, Pickup),
///   `agency` (integer, 3 or 4, fixed per vehicle), `speed` (double, mph),
///   `heading` (double, degrees clockwise from north), `point_x`, `point_y`
///   (double, equal to the geometry's x and y), `lastupdate` (date, epoch ms,
///   equal to the observation's time and to `receivedAt`). Geometry: WGS84
///   points (wkid 4326).
/// - **Timing**: with `n` vehicles at rate `r`, period `p = 1000 / r` ms, the
///   k-th report (k = 0, 1, …) of vehicle `v` (0-based) is at
///   `startTime + round((k + v / n) · p)`. Reports come round-robin
///   (TRUCK 1, TRUCK 2, …, TRUCK n, TRUCK 1, …), so times never decrease and
///   each vehicle's times strictly increase (p ≥ 1 ms).
/// - **Motion**: vehicles drive only along the ``grid``'s streets and never
///   leave it (see `FleetVehicle` for the exact model). Each vehicle
///   alternates driving phases (≈ 60–480 s, a cruising speed drawn from its
///   kind's ``VehicleKind/speedRange``, each report jittered ±2 mph and
///   rounded to 0.1 mph) and stopped phases (≈ 15–150 s); about 20–25 % of
///   reports are stopped. Phases change only at report instants.
/// - **Speed** reported at a report is the distance travelled along the
///   streets since the vehicle's previous report divided by the time between
///   them (the average over the interval ending at this report), in mph. The
///   path within one interval never reverses direction on either axis, so
///   that distance equals the Manhattan distance between the two positions
///   (metres on the sphere, ``GroundDistance``). A stopped report has speed
///   exactly 0 and the previous position; a driving one has speed > 0.
/// - **Heading** is the direction of the last movement: 0 north, 90 east,
///   180 south, 270 west; unchanged while stopped.
/// - **Determinism**: the sequence depends only on the (normalized)
///   configuration and `startTime`; vehicle `v`'s random stream depends only
///   on the seed and `v`.
public struct SnowplowFleet: Sendable {
    /// The schema of the emulated `SandyVehicles` service; track id `vehiclename`.
    public static let schema = Schema(fields: [
        Field(name: "vehiclename", type: .string),
        Field(name: "vehicletype", type: .string),
        Field(name: "agency", type: .integer),
        Field(name: "speed", type: .double),
        Field(name: "heading", type: .double),
        Field(name: "point_x", type: .double),
        Field(name: "point_y", type: .double),
        Field(name: "lastupdate", type: .date),
    ], trackIDField: "vehiclename")

    /// The emulated service's name.
    public static let serviceName = "SandyVehicles"

    /// The configuration actually simulated (``FleetConfiguration/normalized``).
    public let configuration: FleetConfiguration
    /// Time of the first report, epoch ms.
    public let startTime: Int64
    /// The streets the vehicles drive on.
    public let grid: StreetGrid
    /// Milliseconds between two reports of one vehicle (before rounding to whole ms).
    public let period: Double

    private var vehicles: [FleetVehicle]
    private var nextVehicle = 0
    private var round: Int64 = 0

    public init(configuration: FleetConfiguration, startTime: Int64) {
        let configuration = configuration.normalized
        self.configuration = configuration
        self.startTime = startTime
        grid = StreetGrid(envelope: configuration.envelope)
        period = 1000 / configuration.ratePerVehicle
        var master = SplitMix64(seed: configuration.seed)
        var vehicles: [FleetVehicle] = []
        vehicles.reserveCapacity(configuration.vehicles)
        for index in 0..<configuration.vehicles {
            vehicles.append(FleetVehicle(
                number: index + 1, seed: master.next(), grid: grid,
                rate: configuration.ratePerVehicle,
                firstTime: Self.time(round: -1, vehicle: index, of: configuration.vehicles,
                                     period: period, start: startTime)))
        }
        self.vehicles = vehicles
    }

    /// The fleet a server started at `serverStart` (epoch ms) serves: already
    /// on the road, its timeline beginning one report period earlier, so that
    /// every vehicle has reported once by `serverStart`. A "Store Latest"
    /// archive then holds the whole fleet from the first request, and a
    /// subscriber joining at any moment gets the reports due from then on.
    public static func served(configuration: FleetConfiguration, serverStart: Int64) -> SnowplowFleet {
        let period = 1000 / configuration.normalized.ratePerVehicle
        return SnowplowFleet(configuration: configuration, startTime: serverStart - Int64(period.rounded(.up)))
    }

    /// The `vehiclename` values, in report order.
    public var vehicleNames: [String] {
        vehicles.map { if case .string(let name) = $0.name { return name } else { return "" } }
    }

    /// Number of observations produced so far.
    public var emittedCount: Int { Int(round) * vehicles.count + nextVehicle }

    /// The time of the observation ``next()`` will return, epoch ms.
    public var nextTime: Int64 {
        Self.time(round: round, vehicle: nextVehicle, of: vehicles.count, period: period, start: startTime)
    }

    /// The next observation in time order across all vehicles, advancing the simulation.
    public mutating func next() -> Observation {
        let index = nextVehicle
        let time = nextTime
        let elapsed = time - vehicles[index].lastTime
        let speed = vehicles[index].advance(milliseconds: elapsed, rate: configuration.ratePerVehicle, grid: grid)
        vehicles[index].lastTime = time
        let vehicle = vehicles[index]
        let (x, y) = vehicle.point(on: grid)
        nextVehicle += 1
        if nextVehicle == vehicles.count {
            nextVehicle = 0
            round += 1
        }
        return Observation(
            geometry: Point(x: x, y: y, wkid: 4326),
            attributes: [
                vehicle.name, vehicle.vehicleType, vehicle.agency,
                .double(speed), .double(vehicle.heading), .double(x), .double(y),
                .date(milliseconds: time),
            ],
            receivedAt: time)
    }

    /// The next `count` observations (none when `count` ≤ 0).
    public mutating func next(count: Int) -> [Observation] {
        guard count > 0 else { return [] }
        var result: [Observation] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(next()) }
        return result
    }

    private static func time(round: Int64, vehicle: Int, of count: Int, period: Double, start: Int64) -> Int64 {
        let offset = (Double(round) + Double(vehicle) / Double(count)) * period
        return start &+ Int64(offset.rounded())
    }
}
