/// How incidents (points without a value) become weighted features.
///
/// - ``fishnet(cellSize:)``: Optimized Hot Spot Analysis's default
///   (`COUNT_INCIDENTS_WITHIN_FISHNET_POLYGONS`). Square cells of `cellSize`
///   (in the input's linear unit; metres for geographic input) laid from the
///   lower-left corner of the incidents' extent; each incident is counted in
///   exactly one cell (cells are closed on their lower and left sides); the
///   count is `JOIN_COUNT` and the feature is the cell polygon, analysed at
///   its centre. Cells without incidents take no part (OHSA without
///   bounding polygons). `nil` chooses the size as OHSA does (see
///   ``Fishnet``).
/// - ``collectEvents``: ArcGIS's Collect Events: incidents at identical
///   coordinates become one point whose count is `ICOUNT`.
public enum HotSpotAggregation: Sendable, Hashable {
    case fishnet(cellSize: Double?)
    case collectEvents

    /// The name of the count field this aggregation writes.
    public var countField: String {
        switch self {
        case .fishnet: return "JOIN_COUNT"
        case .collectEvents: return "ICOUNT"
        }
    }
}
