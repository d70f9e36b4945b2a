import Foundation

/// UTM on WGS84 written in the test from Snyder's series (USGS Professional
/// Paper 1395, eqs. 8-9 to 8-10): an oracle independent of PROJ, accurate to
/// centimetres within a zone, for checking that points identified in WGS84
/// land in the cell their UTM coordinates name.
enum TransverseMercatorOracle {
    static let a = 6_378_137.0
    static let f = 1 / 298.257_223_563
    static let k0 = 0.9996

    /// (easting, northing) of (`longitude`, `latitude`) degrees in UTM `zone` (north).
    static func utm(longitude: Double, latitude: Double, zone: Int) -> (x: Double, y: Double) {
        let e2 = f * (2 - f)
        let ep2 = e2 / (1 - e2)
        let phi = latitude * .pi / 180
        let lambda0 = Double(6 * zone - 183) * .pi / 180
        let n = a / sqrt(1 - e2 * sin(phi) * sin(phi))
        let t = tan(phi) * tan(phi)
        let c = ep2 * cos(phi) * cos(phi)
        let aa = (longitude * .pi / 180 - lambda0) * cos(phi)
        let e4 = e2 * e2, e6 = e4 * e2
        let m = a * ((1 - e2 / 4 - 3 * e4 / 64 - 5 * e6 / 256) * phi
                     - (3 * e2 / 8 + 3 * e4 / 32 + 45 * e6 / 1024) * sin(2 * phi)
                     + (15 * e4 / 256 + 45 * e6 / 1024) * sin(4 * phi)
                     - (35 * e6 / 3072) * sin(6 * phi))
        let x = k0 * n * (aa + (1 - t + c) * pow(aa, 3) / 6 + (5 - 18 * t + t * t + 72 * c - 58 * ep2) * pow(aa, 5) / 120) + 500_000
        let y = k0 * (m + n * tan(phi) * (aa * aa / 2 + (5 - t + 9 * c + 4 * c * c) * pow(aa, 4) / 24
                                          + (61 - 58 * t + t * t + 600 * c - 330 * ep2) * pow(aa, 6) / 720))
        return (x, y)
    }
}
