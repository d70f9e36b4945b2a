#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the ground between WGS84 positions, on a sphere of the
/// Earth's mean radius (6 371 008.8 m). Pure functions.
///
/// The fleet measures travel with these: along a north–south street a degree
/// of latitude is ``metersPerDegreeLatitude``; along an east–west street (a
/// parallel) a degree of longitude is ``metersPerDegreeLongitude(atLatitude:)``.
/// Both are exact arc lengths on the sphere.
public enum GroundDistance {
    /// Mean Earth radius (IUGG), metres.
    public static let earthRadius: Double = 6_371_008.8
    /// Metres per degree along a meridian.
    public static let metersPerDegreeLatitude: Double = earthRadius * Double.pi / 180
    /// Metres per mile-per-hour-second: 1 mph = 0.44704 m/s exactly.
    public static let metersPerSecondPerMPH: Double = 0.44704

    /// Metres per degree of longitude along the parallel at `latitude` degrees.
    public static func metersPerDegreeLongitude(atLatitude latitude: Double) -> Double {
        metersPerDegreeLatitude * cos(latitude * Double.pi / 180)
    }

    /// Great-circle (haversine) distance in metres between two lon/lat points in degrees.
    public static func haversine(lon1: Double, lat1: Double, lon2: Double, lat2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dPhi = (lat2 - lat1) * toRadians
        let dLambda = (lon2 - lon1) * toRadians
        let a = sin(dPhi / 2) * sin(dPhi / 2)
            + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
