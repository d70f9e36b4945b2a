import Foundation

/// The WGS84 ellipsoid and the conversions the engine needs between geodetic
/// longitude/latitude (degrees, height 0) and Earth-centred Earth-fixed
/// coordinates (metres). Pure functions.
enum WGS84 {
    /// Semi-major axis (m).
    static let a = 6_378_137.0
    /// Flattening.
    static let f = 1 / 298.257_223_563
    /// First eccentricity squared.
    static let e2 = f * (2 - f)
    /// Semi-minor axis (m).
    static let b = a * (1 - f)

    static let degrees = Double.pi / 180

    /// The ECEF position of the ellipsoid point at `longitude`, `latitude` (degrees).
    static func position(longitude: Double, latitude: Double) -> SIMD3<Double> {
        let lambda = longitude * degrees, phi = latitude * degrees
        let sinPhi = sin(phi), cosPhi = cos(phi)
        let radius = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        return SIMD3(radius * cosPhi * cos(lambda), radius * cosPhi * sin(lambda), radius * (1 - e2) * sinPhi)
    }

    /// The outward unit normal of the ellipsoid at `longitude`, `latitude` (degrees).
    static func normal(longitude: Double, latitude: Double) -> SIMD3<Double> {
        let lambda = longitude * degrees, phi = latitude * degrees
        return SIMD3(cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
    }

    /// Longitude and latitude (degrees) of an ECEF point ON the ellipsoid
    /// (exact there: tan φ = Z / ((1 − e²)·p)).
    static func geodetic(_ p: SIMD3<Double>) -> (longitude: Double, latitude: Double) {
        let horizontal = (p.x * p.x + p.y * p.y).squareRoot()
        return (atan2(p.y, p.x) / degrees, atan2(p.z, horizontal * (1 - e2)) / degrees)
    }
}
