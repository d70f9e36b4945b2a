/// An axis-aligned envelope (`xmin, ymin, xmax, ymax`) in one spatial reference.
public struct Envelope: Sendable, Hashable {
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double
    public var wkid: Int?

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, wkid: Int? = nil) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.wkid = wkid
    }

    /// True when `point` lies inside or on the boundary (the SDK's "intersects"),
    /// comparing the coordinates as they are.
    @inlinable public func contains(_ point: Point) -> Bool {
        point.x >= xmin && point.x <= xmax && point.y >= ymin && point.y <= ymax
    }

    /// ``contains(_:)`` after converting `point` into this envelope's spatial
    /// reference (WGS84 ↔ Web Mercator; a point without a wkid is in
    /// `assumed`). Coordinates are compared as they are when either reference
    /// is unknown or the pair cannot be converted.
    public func contains(_ point: Point, assuming assumed: Int?) -> Bool {
        guard let wkid, let converted = WebMercator.convert(point, to: wkid, assuming: assumed) else { return contains(point) }
        return contains(converted)
    }

    /// The smallest envelope holding `box` (nil: none yet) and the point
    /// `x`, `y`; the wkid is `box`'s (nil for the first point).
    public static func including(_ box: Envelope?, x: Double, y: Double) -> Envelope {
        guard let box else { return Envelope(xmin: x, ymin: y, xmax: x, ymax: y) }
        return Envelope(xmin: min(box.xmin, x), ymin: min(box.ymin, y), xmax: max(box.xmax, x), ymax: max(box.ymax, y), wkid: box.wkid)
    }
}
