import Foundation

/// Map projections written in the test from their published formulas
/// (Snyder, USGS Professional Paper 1395; EPSG Guidance Note 7-2), as
/// oracles independent of PROJ: the projections' own equations on the
/// ellipsoid, no datum shift. Shared by the Projection and Raster tests.
public enum ProjectionOracles {
    /// An ellipsoid by its semi-major axis and inverse flattening.
    public struct Ellipsoid: Sendable {
        public var a: Double
        public var inverseFlattening: Double
        public init(a: Double, inverseFlattening: Double) {
            self.a = a
            self.inverseFlattening = inverseFlattening
        }
        public var e2: Double { let f = 1 / inverseFlattening; return f * (2 - f) }
        public var e: Double { e2.squareRoot() }

        public static let wgs84 = Ellipsoid(a: 6_378_137, inverseFlattening: 298.257_223_563)
        public static let grs80 = Ellipsoid(a: 6_378_137, inverseFlattening: 298.257_222_101)
        public static let airy1830 = Ellipsoid(a: 6_377_563.396, inverseFlattening: 299.324_964_6)
        public static let clarke1866 = Ellipsoid(a: 6_378_206.4, inverseFlattening: 294.978_698_2)
    }

    public static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    /// Meridian arc length from the equator to `phi` (Snyder 3-21).
    public static func meridianArc(_ phi: Double, _ ellipsoid: Ellipsoid) -> Double {
        let e2 = ellipsoid.e2, e4 = e2 * e2, e6 = e4 * e2
        return ellipsoid.a * ((1 - e2 / 4 - 3 * e4 / 64 - 5 * e6 / 256) * phi
                              - (3 * e2 / 8 + 3 * e4 / 32 + 45 * e6 / 1024) * sin(2 * phi)
                              + (15 * e4 / 256 + 45 * e6 / 1024) * sin(4 * phi)
                              - (35 * e6 / 3072) * sin(6 * phi))
    }

    /// Transverse Mercator (Snyder 8-9, 8-10), metres; accurate to millimetres
    /// within a few degrees of the central meridian.
    public static func transverseMercator(longitude: Double, latitude: Double, ellipsoid: Ellipsoid, latitudeOfOrigin: Double,
                                   centralMeridian: Double, scale k0: Double, falseEasting: Double, falseNorthing: Double) -> (x: Double, y: Double) {
        let e2 = ellipsoid.e2
        let ep2 = e2 / (1 - e2)
        let phi = radians(latitude)
        let n = ellipsoid.a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        let t = tan(phi) * tan(phi)
        let c = ep2 * cos(phi) * cos(phi)
        let a = (radians(longitude) - radians(centralMeridian)) * cos(phi)
        let m = meridianArc(phi, ellipsoid), m0 = meridianArc(radians(latitudeOfOrigin), ellipsoid)
        let x = falseEasting + k0 * n * (a + (1 - t + c) * pow(a, 3) / 6 + (5 - 18 * t + t * t + 72 * c - 58 * ep2) * pow(a, 5) / 120)
        let y = falseNorthing + k0 * (m - m0 + n * tan(phi) * (a * a / 2 + (5 - t + 9 * c + 4 * c * c) * pow(a, 4) / 24
                                                               + (61 - 58 * t + t * t + 600 * c - 330 * ep2) * pow(a, 6) / 720))
        return (x, y)
    }

    /// Lambert Conformal Conic with two standard parallels on the ellipsoid
    /// (Snyder 15-1 … 15-10; EPSG method 9802), in metres.
    public static func lambertConformalConic(longitude: Double, latitude: Double, ellipsoid: Ellipsoid, latitudeOfOrigin: Double,
                                      centralMeridian: Double, standardParallel1: Double, standardParallel2: Double,
                                      falseEasting: Double, falseNorthing: Double) -> (x: Double, y: Double) {
        let e = ellipsoid.e
        func m(_ phi: Double) -> Double { cos(phi) / (1 - e * e * sin(phi) * sin(phi)).squareRoot() }
        func t(_ phi: Double) -> Double { tan(.pi / 4 - phi / 2) / pow((1 - e * sin(phi)) / (1 + e * sin(phi)), e / 2) }
        let phi1 = radians(standardParallel1), phi2 = radians(standardParallel2)
        let n = (log(m(phi1)) - log(m(phi2))) / (log(t(phi1)) - log(t(phi2)))
        let f = m(phi1) / (n * pow(t(phi1), n))
        let rho = ellipsoid.a * f * pow(t(radians(latitude)), n)
        let rho0 = ellipsoid.a * f * pow(t(radians(latitudeOfOrigin)), n)
        let theta = n * (radians(longitude) - radians(centralMeridian))
        return (falseEasting + rho * sin(theta), falseNorthing + rho0 - rho * cos(theta))
    }

    /// Spherical ("Web") Mercator on a sphere of the WGS84 semi-major axis.
    public static func webMercator(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let r = Ellipsoid.wgs84.a
        return (r * radians(longitude), r * log(tan(.pi / 4 + radians(latitude) / 2)))
    }

    /// NAD83(HARN) / Oregon North (ft), EPSG:2913: Lambert 2SP on GRS80,
    /// parallels 46° and 44°20′, origin 43°40′N 120°30′W, false easting
    /// 8,202,099.738 ft, in international feet (0.3048 m).
    public static func oregonNorthFeet(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let metres = lambertConformalConic(longitude: longitude, latitude: latitude, ellipsoid: .grs80, latitudeOfOrigin: 43 + 40.0 / 60,
                                           centralMeridian: -120.5, standardParallel1: 46, standardParallel2: 44 + 20.0 / 60,
                                           falseEasting: 0, falseNorthing: 0)
        return (metres.x / 0.3048 + 8_202_099.738, metres.y / 0.3048)
    }
}
