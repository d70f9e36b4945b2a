/// The output of a hot-spot analysis: one ``HotSpotFeature`` per analysed
/// feature and a ``HotSpotSummary``.
///
/// Feature order: weighted input in record order; Collect Events in order of
/// each location's first incident; fishnet cells by row, then column (from
/// the lower left). ``valueField`` names the analysed value (`JOIN_COUNT`,
/// `ICOUNT`, or nil for the caller's own value field). ``geometry(of:)``
/// gives the point or the cell polygon in the input's coordinates. A value
/// type; `Sendable`.
public struct HotSpotResult: Sendable {
    public let features: [HotSpotFeature]
    public let summary: HotSpotSummary
    /// The fishnet used (fishnet aggregation only).
    public let fishnet: Fishnet?
    public let valueField: String?
    let frame: PlanarFrame

    init(features: [HotSpotFeature], summary: HotSpotSummary, fishnet: Fishnet?, valueField: String?, frame: PlanarFrame) {
        self.features = features
        self.summary = summary
        self.fishnet = fishnet
        self.valueField = valueField
        self.frame = frame
    }

    /// The feature's geometry: its point, or its fishnet cell.
    public func geometry(of feature: HotSpotFeature) -> HotSpotGeometry {
        guard let fishnet, feature.column >= 0, feature.row >= 0 else { return .point(x: feature.x, y: feature.y) }
        let ring = fishnet.corners(column: Int(feature.column), row: Int(feature.row)).map { corner -> [Double] in
            let p = frame.unproject(e: corner.e, n: corner.n) ?? (x: feature.x, y: feature.y)
            return [p.x, p.y]
        }
        return .polygon(ring: ring)
    }
}
