/// The geometry of an analysis result feature: a point, or a polygon (e.g.
/// a fishnet cell of a hot-spot analysis) as closed rings of x/y pairs in
/// one spatial reference. Written as Esri JSON or GeoJSON by the formatter.
public enum AnalysisGeometry: Sendable, Hashable {
    case point(Point)
    /// Rings of `(x, y)` pairs, each closed (first == last), exterior ring
    /// clockwise as Esri JSON expects.
    case polygon(rings: [[Coordinate]], wkid: Int?)

    /// One x/y pair.
    public struct Coordinate: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }
}
