/// The parameters of a hot-spot analysis. Defaults are Optimized Hot Spot
/// Analysis's: fishnet aggregation of incidents with a chosen cell size, a
/// chosen distance band, FDR-corrected bins, at least 30 features.
public struct HotSpotOptions: Sendable, Hashable {
    /// How incidents are aggregated (ignored for weighted input).
    public var aggregation: HotSpotAggregation
    /// The fixed distance band (input's linear unit; metres for geographic
    /// input). `nil` chooses it as Optimized Hot Spot Analysis does (see
    /// ``DistanceBandChoice``). Pairs exactly at the band are neighbours
    /// (`d ≤ band`: libpysal's `DistanceBand` rule, which esda's doctest
    /// needs; ArcGIS does not document its own).
    public var distanceBand: Double?
    /// False Discovery Rate correction of `Gi_Bin` (Benjamini–Hochberg step-up
    /// at 90/95/99 %). `false` gives the plain Hot Spot Analysis bins. z and p
    /// never depend on it.
    public var fdr: Bool
    /// Fewest analysed features (after aggregation) before refusing; ArcGIS: 30.
    public var minimumFeatures: Int
    /// Fewest incidents before refusing (incident input only); OHSA without
    /// bounding polygons: 60.
    public var minimumIncidents: Int
    /// Analyse anyway below the minimums (never below ``absoluteMinimumFeatures``).
    public var force: Bool

    /// Below this many analysed features nothing is computed, forced or not.
    public static let absoluteMinimumFeatures = 3

    public init(aggregation: HotSpotAggregation = .fishnet(cellSize: nil), distanceBand: Double? = nil,
                fdr: Bool = true, minimumFeatures: Int = 30, minimumIncidents: Int = 60, force: Bool = false) {
        self.aggregation = aggregation
        self.distanceBand = distanceBand
        self.fdr = fdr
        self.minimumFeatures = minimumFeatures
        self.minimumIncidents = minimumIncidents
        self.force = force
    }
}
