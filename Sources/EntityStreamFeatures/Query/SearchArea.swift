#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

/// Where a query's geometry lets features match: an envelope (a point is an
/// envelope of no size) in the layer's spatial reference, grown by
/// `distance` when one is given (ArcGIS's buffer).
///
/// Distances: without `units`, in the layer's own units, planar. With
/// `units`: on a WGS84 (4326) layer, geodesic metres on the mean-radius
/// sphere (6,371,008.8 m) from the point to the nearest point of the
/// envelope; on a Web Mercator layer, planar metres (the layer's units).
/// Other spatial references with `units` are refused: their linear unit is
/// not known here. A plain value.
public struct SearchArea: Sendable {
    /// How the distance is measured.
    public enum Measure: Sendable { case inside, planar(Double), geodesic(metres: Double) }

    public let envelope: Envelope
    public let measure: Measure
    /// A polygon's rings (in the layer's spatial reference); nil for an envelope or a point.
    public let rings: [[AnalysisGeometry.Coordinate]]?

    static let earthRadius = 6_371_008.8

    public init(envelope: Envelope, distance: Double?, unit: FeatureQuery.DistanceUnit?, layerReference: Int?,
                rings: [[AnalysisGeometry.Coordinate]]? = nil) throws(FeatureQueryError) {
        self.envelope = envelope
        self.rings = rings
        guard let distance, distance > 0 else {
            measure = .inside
            return
        }
        guard let unit else {
            measure = .planar(distance)
            return
        }
        if layerReference == 4326 {
            measure = .geodesic(metres: distance * unit.metres)
        } else if SpatialReference(code: layerReference)?.isWebMercator == true {
            measure = .planar(distance * unit.metres)
        } else {
            throw .unitNotConvertible(layerReference: layerReference, unit)
        }
    }

    public func contains(_ point: Point) -> Bool {
        if let rings { return polygonContains(point, rings: rings) }
        switch measure {
        case .inside:
            return envelope.contains(point)
        case .planar(let distance):
            let dx = max(envelope.xmin - point.x, 0, point.x - envelope.xmax)
            let dy = max(envelope.ymin - point.y, 0, point.y - envelope.ymax)
            return dx * dx + dy * dy <= distance * distance
        case .geodesic(let metres):
            let nearestX = min(max(point.x, envelope.xmin), envelope.xmax)
            let nearestY = min(max(point.y, envelope.ymin), envelope.ymax)
            return Self.haversineMetres(point.x, point.y, nearestX, nearestY) <= metres
        }
    }

    /// A polygon area: inside (even-odd over every ring) or on the boundary,
    /// or within the distance of the nearest boundary point (found in the
    /// layer's coordinates; geodesic measures then take the great-circle
    /// distance to that point).
    private func polygonContains(_ point: Point, rings: [[AnalysisGeometry.Coordinate]]) -> Bool {
        var inside = false
        var nearest: (distance: Double, x: Double, y: Double) = (.infinity, point.x, point.y)
        for ring in rings where ring.count >= 2 {
            var previous = ring[ring.count - 1]
            for corner in ring {
                if (corner.y > point.y) != (previous.y > point.y) {
                    let crossing = previous.x + (point.y - previous.y) * (corner.x - previous.x) / (corner.y - previous.y)
                    if point.x < crossing { inside.toggle() }
                }
                // Nearest point of this edge.
                let dx = corner.x - previous.x, dy = corner.y - previous.y
                let length = dx * dx + dy * dy
                let t = length > 0 ? min(1, max(0, ((point.x - previous.x) * dx + (point.y - previous.y) * dy) / length)) : 0
                let nx = previous.x + t * dx, ny = previous.y + t * dy
                let distance = (point.x - nx) * (point.x - nx) + (point.y - ny) * (point.y - ny)
                if distance < nearest.distance { nearest = (distance, nx, ny) }
                previous = corner
            }
        }
        if inside || nearest.distance == 0 { return true }
        switch measure {
        case .inside: return false
        case .planar(let limit): return nearest.distance <= limit * limit
        case .geodesic(let metres): return Self.haversineMetres(point.x, point.y, nearest.x, nearest.y) <= metres
        }
    }

    /// True when the rectangle `box` (a polygon's bounds; exact for
    /// axis-aligned cells such as a fishnet's) touches the area.
    public func intersects(_ box: Envelope) -> Bool {
        let dx = max(envelope.xmin - box.xmax, 0, box.xmin - envelope.xmax)
        let dy = max(envelope.ymin - box.ymax, 0, box.ymin - envelope.ymax)
        switch measure {
        case .inside:
            return dx == 0 && dy == 0
        case .planar(let distance):
            return dx * dx + dy * dy <= distance * distance
        case .geodesic(let metres):
            // The nearest pair of points: the overlap when the ranges meet, else the facing edges.
            func nearest(_ aMin: Double, _ aMax: Double, _ bMin: Double, _ bMax: Double) -> (Double, Double) {
                if aMax < bMin { return (aMax, bMin) }
                if bMax < aMin { return (aMin, bMax) }
                let shared = max(aMin, bMin)
                return (shared, shared)
            }
            let (x1, x2) = nearest(envelope.xmin, envelope.xmax, box.xmin, box.xmax)
            let (y1, y2) = nearest(envelope.ymin, envelope.ymax, box.ymin, box.ymax)
            return Self.haversineMetres(x1, y1, x2, y2) <= metres
        }
    }

    /// Great-circle distance in metres between two longitude/latitude points (degrees).
    static func haversineMetres(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
