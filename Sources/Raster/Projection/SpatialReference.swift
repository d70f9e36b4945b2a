/// The spatial reference of a point given to identify: an ArcGIS well-known
/// id (WKID).
///
/// WKIDs below 100000 and most others are EPSG codes; Esri's own ids
/// (1000xx and up) are looked up under PROJ's `ESRI` authority when EPSG
/// does not know them. The Web Mercator aliases 102100, 102113 and 900913
/// are normalised to EPSG:3857 (as `EntityStreamCore.WebMercator` treats
/// them). Coordinates are always in traditional GIS order: x = longitude /
/// easting, y = latitude / northing. Value type; `Sendable`.
public struct SpatialReference: Sendable, Hashable, CustomStringConvertible {
    /// The WKID after normalisation (102100 → 3857).
    public let wkid: Int

    /// WGS84 longitude/latitude (EPSG:4326).
    public static let wgs84 = SpatialReference(wkid: 4326)
    /// Web Mercator (EPSG:3857, Esri 102100).
    public static let webMercator = SpatialReference(wkid: 3857)

    /// The reference for `wkid` (positive; 102100, 102113 and 900913 become 3857).
    public init(wkid: Int) {
        switch wkid {
        case 102100, 102113, 900913: self.wkid = 3857
        default: self.wkid = wkid
        }
    }

    /// The definitions PROJ is asked for, in order: `EPSG:n`, then `ESRI:n`.
    var projCandidates: [String] { ["EPSG:\(wkid)", "ESRI:\(wkid)"] }

    public var description: String { "wkid \(wkid)" }
}
