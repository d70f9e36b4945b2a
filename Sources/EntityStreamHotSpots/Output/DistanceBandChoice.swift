/// How the distance band of an analysis was obtained.
public enum DistanceBandChoice: Sendable, Hashable {
    /// The caller gave it.
    case given
    /// The first peak of Global Moran's I z over Incremental Spatial
    /// Autocorrelation's distances (OHSA's preferred choice).
    case firstPeak(zScore: Double)
    /// The highest peak (used when a first peak is missing, as ArcGIS does).
    case maximumPeak(zScore: Double)
    /// No peak above z 1.65 (or ISA impossible): the mean distance to the
    /// k-th nearest neighbour, capped at the standard distance.
    case nearestNeighbors(k: Int, cappedAtStandardDistance: Bool)

    /// The choice's name in JSON output.
    public var name: String {
        switch self {
        case .given: return "given"
        case .firstPeak: return "firstPeak"
        case .maximumPeak: return "maximumPeak"
        case .nearestNeighbors: return "nearestNeighbors"
        }
    }
}

/// The distance band an analysis used and why, with the Incremental Spatial
/// Autocorrelation it looked at (empty when the band was given or ISA could
/// not run).
public struct DistanceBandDecision: Sendable, Hashable {
    /// The band used (input's linear unit; metres for geographic input).
    public var band: Double
    public var choice: DistanceBandChoice
    /// A sentence, e.g. "first peak of Global Moran's I (z 4.21) at 1,234.5".
    public var reason: String
    /// True when the chosen band was raised to 0.1 % of the data's extent.
    public var raisedToMinimum: Bool
    /// The distances ISA evaluated, in order.
    public var steps: [MoransIStep]
    /// Features whose nearest neighbour is unusually far (z ≥ 3): they do not
    /// set ISA's starting distance.
    public var locationalOutliers: Int
}
