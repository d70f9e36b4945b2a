import EntityStreamCore

/// How the points of one spatial reference are read by the hot-spot engine,
/// and in which spatial reference its results are written.
///
/// - WGS84 (4326), or no spatial reference at all (a live stream's default):
///   longitude/latitude, analysed as ``HotSpotCoordinates/geographic`` —
///   distances in metres.
/// - Web Mercator (3857, 102100, 102113, 900913): converted to WGS84 first
///   and analysed as geographic. Web Mercator metres are not ground metres
///   (they grow as 1/cos(latitude): ×1.41 at 45°), so a band or cell size in
///   them would mean different distances in different places; results are
///   written in WGS84 (4326).
/// - Any other wkid: planar coordinates in that system's own linear unit
///   (``HotSpotCoordinates/projected``), results in that wkid.
///
/// A value; pure functions.
public struct HotSpotPointReading: Sendable, Hashable {
    /// How the engine measures the read coordinates.
    public let coordinates: HotSpotCoordinates
    /// The spatial reference the points arrive in (nil: none given).
    public let inputWKID: Int?
    /// True when points are converted from Web Mercator to WGS84.
    public let convertsWebMercator: Bool

    /// The reading for points in `wkid`.
    public init(wkid: Int?) {
        inputWKID = wkid
        if let wkid, wkid != 4326, !WebMercator.isWebMercator(wkid) {
            coordinates = .projected
            convertsWebMercator = false
        } else {
            coordinates = .geographic
            convertsWebMercator = WebMercator.isWebMercator(wkid)
        }
    }

    /// The spatial reference of the engine's coordinates (and of the results):
    /// 4326 for geographic input, else the input's own.
    public var outputWKID: Int? { coordinates == .geographic ? 4326 : inputWKID }

    /// The linear unit distances are given in, as a user reads it.
    public var distanceUnit: String { coordinates == .geographic ? "metres" : "the data's own linear unit (wkid \(inputWKID.map(String.init) ?? "unknown"))" }

    /// A point's coordinates as the engine takes them (Web Mercator converted).
    @inline(__always)
    public func read(x: Double, y: Double) -> (x: Double, y: Double) {
        guard convertsWebMercator else { return (x, y) }
        let p = WebMercator.unproject(Point(x: x, y: y))
        return (p.x, p.y)
    }
}
