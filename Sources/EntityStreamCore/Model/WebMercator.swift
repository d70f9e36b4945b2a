#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// WGS84 (wkid 4326) ↔ Web Mercator (wkid 3857, also 102100/102113/900913)
/// on the sphere of radius 6378137 m (the "spherical Mercator" every web map uses).
///
/// Pure functions, no state. The input's `wkid` is not consulted: ``project(_:)``
/// treats its input as longitude/latitude in degrees and ``unproject(_:)`` treats
/// its input as Web Mercator metres; each sets the output's `wkid` (3857 and
/// 4326 respectively) and keeps `z` and `m` unchanged. Latitudes are clamped to
/// ±``maxLatitude`` (where the square world map ends), longitudes are not
/// wrapped. Non-finite coordinates give non-finite results; nothing traps.
public enum WebMercator {
    /// The sphere's radius in metres (the WGS84 semi-major axis).
    public static let radius: Double = 6_378_137
    /// The latitude (degrees) at which Web Mercator's y equals its x extent: ±85.05112878°.
    public static let maxLatitude: Double = 85.051_128_78
    /// The well-known ids that denote Web Mercator: 3857, 102100, 102113, 900913.
    public static let wkids: Set<Int> = [3857, 102100, 102113, 900913]

    private static let degreesToRadians = Double.pi / 180
    private static let radiansToDegrees = 180 / Double.pi

    /// True when `wkid` is one of the Web Mercator ids (``wkids``).
    public static func isWebMercator(_ wkid: Int?) -> Bool {
        guard let wkid else { return false }
        return wkids.contains(wkid)
    }

    /// True when points can be converted to and from `wkid` here: 4326 or a Web Mercator id.
    public static func canConvert(to wkid: Int) -> Bool {
        wkid == 4326 || wkids.contains(wkid)
    }

    /// `point` in spatial reference `target`. A point without a wkid is taken
    /// to be in `assumed`. WGS84 and Web Mercator convert into each other (a
    /// Web Mercator point asked for under another Web Mercator id is only
    /// relabelled); a point already in `target` is returned with that wkid.
    /// Nil when the point's reference is unknown or the pair cannot be converted.
    public static func convert(_ point: Point, to target: Int, assuming assumed: Int? = nil) -> Point? {
        guard let source = point.wkid ?? assumed else { return nil }
        var result: Point
        if source == target || (isWebMercator(source) && isWebMercator(target)) {
            result = point
        } else if source == 4326 && isWebMercator(target) {
            result = project(point)
        } else if isWebMercator(source) && target == 4326 {
            result = unproject(point)
        } else {
            return nil
        }
        result.wkid = target
        return result
    }

    /// Longitude/latitude in degrees → Web Mercator metres (wkid 3857); keeps z and m.
    public static func project(_ point: Point) -> Point {
        let (x, y) = projectXY(x: point.x, y: point.y)
        return Point(x: x, y: y, z: point.z, m: point.m, wkid: 3857)
    }

    /// Web Mercator metres → longitude/latitude in degrees (wkid 4326); keeps z and m.
    public static func unproject(_ point: Point) -> Point {
        let (x, y) = unprojectXY(x: point.x, y: point.y)
        return Point(x: x, y: y, z: point.z, m: point.m, wkid: 4326)
    }

    /// Projects both corners (the projection is monotone in each axis, so the
    /// result is the exact image of the envelope); sets wkid 3857.
    public static func project(_ envelope: Envelope) -> Envelope {
        let (xmin, ymin) = projectXY(x: envelope.xmin, y: envelope.ymin)
        let (xmax, ymax) = projectXY(x: envelope.xmax, y: envelope.ymax)
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: 3857)
    }

    /// Unprojects both corners; sets wkid 4326.
    public static func unproject(_ envelope: Envelope) -> Envelope {
        let (xmin, ymin) = unprojectXY(x: envelope.xmin, y: envelope.ymin)
        let (xmax, ymax) = unprojectXY(x: envelope.xmax, y: envelope.ymax)
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: 4326)
    }

    /// x = R·λ, y = R·ln(tan(π/4 + φ/2)), φ clamped to ±maxLatitude.
    @inline(__always)
    static func projectXY(x longitude: Double, y latitude: Double) -> (Double, Double) {
        let clamped = latitude.isNaN ? latitude : min(max(latitude, -maxLatitude), maxLatitude)
        let phi = clamped * degreesToRadians
        let x = radius * longitude * degreesToRadians
        let y = radius * log(tan(Double.pi / 4 + phi / 2))
        return (x, y)
    }

    /// λ = x/R, φ = 2·atan(exp(y/R)) − π/2.
    @inline(__always)
    static func unprojectXY(x: Double, y: Double) -> (Double, Double) {
        let longitude = x / radius * radiansToDegrees
        let latitude = (2 * atan(exp(y / radius)) - Double.pi / 2) * radiansToDegrees
        return (longitude, latitude)
    }
}
