import Foundation

/// The frame in which the engine measures: every point becomes `(e, n, u)`
/// in linear units, distances are Euclidean in 3-D, and spatial indexes use
/// `(e, n)` only.
///
/// - Projected input: `e = x − cx`, `n = y − cy`, `u = 0` (a translation to
///   the middle of the data keeps the arithmetic precise); distances are the
///   input's planar distances.
/// - Geographic input (WGS84): the point on the ellipsoid in metres, in an
///   east-north-up frame whose origin is the ellipsoid point below the mean
///   surface normal of the data. A rotation and translation of Earth-centred
///   coordinates, so 3-D distances are exactly the chord lengths ArcGIS
///   measures; `(e, n)` is the orthographic view from above the centre, never
///   longer than the chord, so a search of radius r in `(e, n)` finds every
///   point within chord r (the index stays exact). Points more than 60° from
///   the centre are refused (the view would flatten them).
///
/// Plane points (fishnet cells) map back to input coordinates with
/// ``unproject(e:n:)``: for geographic input the ellipsoid point seen at
/// `(e, n)` from above the centre.
struct PlanarFrame: Sendable {
    enum Kind: Sendable {
        case translated(cx: Double, cy: Double)
        case tangent(origin: SIMD3<Double>, east: SIMD3<Double>, north: SIMD3<Double>, up: SIMD3<Double>)
    }

    let kind: Kind
    /// Largest angle (degrees) between a geographic point's normal and the centre's.
    static let geographicLimit = 60.0

    var isGeographic: Bool {
        if case .tangent = kind { return true }
        return false
    }

    /// The frame for the given input coordinates (at least one point).
    static func make(_ coordinates: HotSpotCoordinates, x: [Double], y: [Double]) throws(HotSpotError) -> PlanarFrame {
        guard !x.isEmpty else { return PlanarFrame(kind: .translated(cx: 0, cy: 0)) }
        switch coordinates {
        case .projected:
            var minX = x[0], maxX = x[0], minY = y[0], maxY = y[0]
            for i in x.indices {
                minX = min(minX, x[i]); maxX = max(maxX, x[i])
                minY = min(minY, y[i]); maxY = max(maxY, y[i])
            }
            return PlanarFrame(kind: .translated(cx: minX / 2 + maxX / 2, cy: minY / 2 + maxY / 2))
        case .geographic:
            var sum = SIMD3<Double>(0, 0, 0)
            for i in x.indices { sum += WGS84.normal(longitude: x[i], latitude: y[i]) }
            let length = (sum * sum).sum().squareRoot()
            guard length > 1e-9 * Double(x.count) else {
                throw .geographicSpanTooLarge(degreesFromCentre: 180, limit: geographicLimit)
            }
            let up = sum / length
            let longitude = atan2(up.y, up.x) / WGS84.degrees
            let latitude = atan2(up.z, (up.x * up.x + up.y * up.y).squareRoot()) / WGS84.degrees
            let lambda = longitude * WGS84.degrees, phi = latitude * WGS84.degrees
            let east = SIMD3(-sin(lambda), cos(lambda), 0)
            let north = SIMD3(-sin(phi) * cos(lambda), -sin(phi) * sin(lambda), cos(phi))
            let normal = SIMD3(cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
            var smallestCosine = 1.0
            for i in x.indices {
                smallestCosine = min(smallestCosine, (WGS84.normal(longitude: x[i], latitude: y[i]) * normal).sum())
            }
            let limitCosine = cos(geographicLimit * WGS84.degrees)
            guard smallestCosine >= limitCosine else {
                let degrees = acos(max(-1, min(1, smallestCosine))) / WGS84.degrees
                throw .geographicSpanTooLarge(degreesFromCentre: (degrees * 10).rounded() / 10, limit: geographicLimit)
            }
            return PlanarFrame(kind: .tangent(origin: WGS84.position(longitude: longitude, latitude: latitude),
                                              east: east, north: north, up: normal))
        }
    }

    /// `(e, n, u)` of an input point.
    @inline(__always)
    func project(x: Double, y: Double) -> (e: Double, n: Double, u: Double) {
        switch kind {
        case .translated(let cx, let cy):
            return (x - cx, y - cy, 0)
        case .tangent(let origin, let east, let north, let up):
            let d = WGS84.position(longitude: x, latitude: y) - origin
            return ((d * east).sum(), (d * north).sum(), (d * up).sum())
        }
    }

    /// Projects every point into three new arrays.
    func project(x: [Double], y: [Double]) -> (e: [Double], n: [Double], u: [Double]) {
        var e = [Double](repeating: 0, count: x.count)
        var n = e
        var u = isGeographic ? e : []
        for i in x.indices {
            let p = project(x: x[i], y: y[i])
            e[i] = p.e
            n[i] = p.n
            if isGeographic { u[i] = p.u }
        }
        return (e, n, u)
    }

    /// The input coordinates of a plane point, or nil when (geographic input)
    /// the view from above the centre at `(e, n)` misses the ellipsoid.
    func unproject(e: Double, n: Double) -> (x: Double, y: Double)? {
        switch kind {
        case .translated(let cx, let cy):
            return (e + cx, n + cy)
        case .tangent(let origin, let east, let north, let up):
            // origin + e·east + n·north + t·up on the ellipsoid: the root nearest the plane.
            let q = origin + e * east + n * north
            let a2 = WGS84.a * WGS84.a, b2 = WGS84.b * WGS84.b
            let qa = (q.x * q.x + q.y * q.y) / a2 + q.z * q.z / b2 - 1
            let qb = 2 * ((q.x * up.x + q.y * up.y) / a2 + q.z * up.z / b2)
            let qc = (up.x * up.x + up.y * up.y) / a2 + up.z * up.z / b2
            let discriminant = qb * qb - 4 * qc * qa
            guard discriminant >= 0 else { return nil }
            let t = (-qb + discriminant.squareRoot()) / (2 * qc)
            let g = WGS84.geodetic(q + t * up)
            return (g.longitude, g.latitude)
        }
    }
}
