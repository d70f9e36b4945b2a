import EntityStreamProjection
import EntityStreamModel

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

extension AnalysisGeometry {
    /// The point, or the mean of a polygon's outer-ring corners (the closing
    /// corner not counted twice): a fishnet cell's centre. Nil for an empty ring.
    public var centre: (x: Double, y: Double)? {
        switch self {
        case .point(let point): return (point.x, point.y)
        case .polygon(let rings, _):
            guard var ring = rings.first, !ring.isEmpty else { return nil }
            if ring.count > 1, ring.first == ring.last { ring.removeLast() }
            var x = 0.0, y = 0.0
            for corner in ring {
                x += corner.x
                y += corner.y
            }
            return (x / Double(ring.count), y / Double(ring.count))
        }
    }

    /// The spatial reference code of the geometry's coordinates.
    public var wkid: Int? {
        switch self {
        case .point(let point): return point.wkid
        case .polygon(_, let wkid): return wkid
        }
    }

    /// Converts `coordinates` from `source` to `target` in place, in one PROJ
    /// call; returns how many could not be converted (now NaN).
    /// - Throws: ``ProjectionError`` for an unknown reference or a pair PROJ cannot transform between.
    @discardableResult
    public static func convert(_ coordinates: inout [Coordinate], from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) -> Int {
        let count = coordinates.count
        let stride = MemoryLayout<Coordinate>.stride
        let yOffset = MemoryLayout<Coordinate>.offset(of: \Coordinate.y) ?? 8
        let xOffset = MemoryLayout<Coordinate>.offset(of: \Coordinate.x) ?? 0
        let result: Result<Int, ProjectionError> = coordinates.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return .success(0) }
            return Result { () throws(ProjectionError) in
                try CoordinateOperations.transform(x: base.advanced(by: xOffset).assumingMemoryBound(to: Double.self), xStride: stride,
                                                   y: base.advanced(by: yOffset).assumingMemoryBound(to: Double.self), yStride: stride,
                                                   count: count, from: source, to: target)
            }
        }
        return try result.get()
    }

    /// This geometry in `target` (a point through PROJ, a polygon's corners in one batch).
    /// - Throws: ``ProjectionError`` when a reference is unknown, PROJ cannot
    ///   transform between them, or a coordinate is outside the projection's domain.
    public func converted(to target: SpatialReference) throws(ProjectionError) -> AnalysisGeometry {
        switch self {
        case .point(let point):
            return .point(try point.converted(to: target))
        case .polygon(var rings, let wkid):
            guard let source = SpatialReference(code: wkid), source != target else { return .polygon(rings: rings, wkid: target.code) }
            for index in rings.indices {
                if try Self.convert(&rings[index], from: source, to: target) > 0 {
                    let bad = rings[index].first { !$0.x.isFinite } ?? Coordinate(x: .nan, y: .nan)
                    throw .cannotTransform(x: bad.x, y: bad.y, from: source.label, to: target.label, detail: "a corner of the polygon is outside the projection's domain")
                }
            }
            return .polygon(rings: rings, wkid: target.code)
        }
    }
}

extension JSONWriter {
    /// Polygon rings as nested arrays, `[[[x,y],…],…]`, each vertex's two
    /// numbers written by `coordinate` (plain, rounded or quantized).
    package mutating func appendRings(_ rings: [[AnalysisGeometry.Coordinate]], coordinate: (inout JSONWriter, AnalysisGeometry.Coordinate) -> Void) {
        appendRaw("[")
        for (ringIndex, ring) in rings.enumerated() {
            if ringIndex > 0 { appendRaw(",") }
            appendRaw("[")
            for (index, corner) in ring.enumerated() {
                if index > 0 { appendRaw(",") }
                appendRaw("[")
                coordinate(&self, corner)
                appendRaw("]")
            }
            appendRaw("]")
        }
        appendRaw("]")
    }
}
