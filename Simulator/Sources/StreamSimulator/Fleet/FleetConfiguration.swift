import EntityStreamCore
import EntityStreamModel

/// What a ``SnowplowFleet`` simulates: how many vehicles, the random seed,
/// how often each vehicle reports, and the WGS84 area they drive in.
///
/// A plain value. Any values are accepted; ``normalized`` (which the fleet
/// applies) makes them usable: `vehicles` is clamped to 1...100 000,
/// `ratePerVehicle` to 0.001...1000 observations per second (non-finite → 1),
/// and an envelope that is non-finite, outside ±180°/±85°, or smaller than
/// 0.001° on a side is replaced by ``sandyEnvelope`` (a reversed one is
/// swapped into order first).
public struct FleetConfiguration: Sendable, Hashable {
    /// The extent of Esri's SandyVehicles service (Sandy, Utah), wkid 4326.
    public static let sandyEnvelope = Envelope(
        xmin: -112.110052, ymin: 40.535247, xmax: -111.814782, ymax: 40.718083, wkid: 4326)

    /// Number of vehicles ("TRUCK 1" … "TRUCK n").
    public var vehicles: Int
    /// Seed of the deterministic random sequence.
    public var seed: UInt64
    /// Observations per second per vehicle (1 = each vehicle reports every second).
    public var ratePerVehicle: Double
    /// Where the vehicles drive (WGS84 degrees).
    public var envelope: Envelope

    public init(vehicles: Int = 50, seed: UInt64 = 1, ratePerVehicle: Double = 1,
                envelope: Envelope = FleetConfiguration.sandyEnvelope) {
        self.vehicles = vehicles
        self.seed = seed
        self.ratePerVehicle = ratePerVehicle
        self.envelope = envelope
    }

    /// The configuration with every value brought into its usable range (see the type's contract).
    public var normalized: FleetConfiguration {
        var result = self
        result.vehicles = min(max(vehicles, 1), 100_000)
        result.ratePerVehicle = ratePerVehicle.isFinite ? min(max(ratePerVehicle, 0.001), 1000) : 1
        result.envelope = Self.usableEnvelope(envelope)
        return result
    }

    private static func usableEnvelope(_ e: Envelope) -> Envelope {
        let xmin = min(e.xmin, e.xmax), xmax = max(e.xmin, e.xmax)
        let ymin = min(e.ymin, e.ymax), ymax = max(e.ymin, e.ymax)
        let finite = xmin.isFinite && xmax.isFinite && ymin.isFinite && ymax.isFinite
        guard finite, xmin >= -180, xmax <= 180, ymin >= -85, ymax <= 85,
              xmax - xmin >= 0.001, ymax - ymin >= 0.001 else { return sandyEnvelope }
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: 4326)
    }
}
