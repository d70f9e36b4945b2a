/// The geometry of a result feature, in the input's coordinates: the point
/// (weighted input, Collect Events), or the fishnet cell as one closed ring
/// of five corners, clockwise (ArcGIS's outer-ring order).
public enum HotSpotGeometry: Sendable, Hashable {
    case point(x: Double, y: Double)
    case polygon(ring: [[Double]])
}
