/// What a hot-spot analysis did, in figures: what went in, what was left
/// out and why, the band and why, FDR on or off, and the features per bin.
public struct HotSpotSummary: Sendable, Hashable {
    public var kind: HotSpotInput.Kind
    public var coordinates: HotSpotCoordinates
    /// Records offered to the input.
    public var recordCount: Int
    /// Records kept (points, or incidents before aggregation).
    public var keptCount: Int
    /// Records refused, by reason.
    public var excluded: HotSpotExclusions
    /// How incidents were aggregated (nil for weighted input).
    public var aggregation: HotSpotAggregation?
    /// Features analysed (n): points, fishnet cells or collected locations.
    public var featureCount: Int
    /// Distinct locations among them.
    public var locationCount: Int
    /// Mean and population standard deviation of the analysed values.
    public var mean: Double
    public var standardDeviation: Double
    /// The band, its choice and reason.
    public var distanceBand: DistanceBandDecision
    /// "metres" for geographic input; nil means the input's own linear unit.
    public var linearUnit: String?
    public var fdr: Bool
    /// Features per `Gi_Bin`.
    public var bins: HotSpotBinCounts
    /// Features with no neighbour but themselves (null z and p).
    public var withoutNeighbors: Int
    /// True when `force` let the analysis run below the minimums.
    public var forced: Bool
}
