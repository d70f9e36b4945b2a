import EntityStreamCore
import EntityStreamModel

/// The kinds of vehicle in the simulated snowplow fleet, with the cruising
/// speeds (mph) each drives at while moving and how common each is.
///
/// A plain enumeration; ``name`` is the `vehicletype` attribute value.
public enum VehicleKind: Int, Sendable, Hashable, CaseIterable {
    case plow, plowSalter, grader, pickup

    /// The `vehicletype` attribute value.
    public var name: String {
        switch self {
        case .plow: return "Plow"
        case .plowSalter: return "Plow/Salter"
        case .grader: return "Grader"
        case .pickup: return "Pickup"
        }
    }

    /// Speeds (mph) this kind drives at while moving; every reported non-zero
    /// speed is inside this range, except a final partial interval cut short
    /// at the grid's corner (see ``SnowplowFleet``).
    public var speedRange: ClosedRange<Double> {
        switch self {
        case .plow, .plowSalter: return 15...35
        case .grader: return 10...25
        case .pickup: return 20...45
        }
    }

    /// Share of the fleet (the weights sum to 1).
    var weight: Double {
        switch self {
        case .plow: return 0.40
        case .plowSalter: return 0.35
        case .grader: return 0.10
        case .pickup: return 0.15
        }
    }

    /// A kind drawn by ``weight``.
    static func random(using rng: inout SplitMix64) -> VehicleKind {
        var u = rng.nextDouble()
        for kind in allCases {
            if u < kind.weight { return kind }
            u -= kind.weight
        }
        return .plow
    }
}
