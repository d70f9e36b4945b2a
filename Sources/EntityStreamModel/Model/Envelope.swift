import EntityStreamProjection

/// An axis-aligned envelope (`xmin, ymin, xmax, ymax`) in one spatial
/// reference (`wkid`: its ``SpatialReference/code``; nil for unknown).
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
    /// reference through PROJ (a point without one is in `assumed`). The
    /// coordinates are compared as they are when either reference is
    /// unknown; a point PROJ cannot bring into the envelope's reference (an
    /// unknown reference, outside the projection's domain) is not inside.
    public func contains(_ point: Point, assuming assumed: Int?) -> Bool {
        guard let target = SpatialReference(code: wkid), let source = SpatialReference(code: point.wkid ?? assumed) else { return contains(point) }
        if source == target { return contains(point) }
        guard let converted = try? CoordinateOperations.transform(x: point.x, y: point.y, from: source, to: target) else { return false }
        return converted.x >= xmin && converted.x <= xmax && converted.y >= ymin && converted.y <= ymax
    }

    /// The smallest envelope holding `box` (nil: none yet) and the point
    /// `x`, `y`; the wkid is `box`'s (nil for the first point).
    public static func including(_ box: Envelope?, x: Double, y: Double) -> Envelope {
        guard let box else { return Envelope(xmin: x, ymin: y, xmax: x, ymax: y) }
        return Envelope(xmin: min(box.xmin, x), ymin: min(box.ymin, y), xmax: max(box.xmax, x), ymax: max(box.ymax, y), wkid: box.wkid)
    }
}
