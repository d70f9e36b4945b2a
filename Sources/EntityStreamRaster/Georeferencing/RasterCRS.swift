/// The coordinate reference system a GeoTIFF's GeoKeys declare.
///
/// - ``epsg(_:)``: `ProjectedCSTypeGeoKey` (3072), or for a geographic model
///   `GeographicTypeGeoKey` (2048), names an EPSG code (whether PROJ knows it
///   is checked when a transformation is first needed).
/// - ``userDefined(proj:)``: the keys define the CRS parameter by parameter
///   (code 32767); libgeotiff normalised them to the PROJ string kept here.
/// - ``esriWKT(_:)``: a user-defined CRS as ArcGIS writes one: the keys say
///   user-defined and a citation key holds `ESRI PE String = <ESRI WKT>`,
///   which PROJ reads (as GDAL does).
/// - ``unknown(reason:)``: no GeoKeys, a geocentric model, or user-defined
///   keys libgeotiff could not turn into a definition. Points can then only
///   be identified in the raster's own coordinates.
///
/// `Sendable`.
public enum RasterCRS: Sendable, Hashable, CustomStringConvertible {
    case epsg(Int)
    case userDefined(proj: String)
    case esriWKT(String)
    case unknown(reason: String)

    /// The EPSG code, when there is one.
    public var epsgCode: Int? {
        if case .epsg(let code) = self { return code }
        return nil
    }

    /// The definition PROJ is given (`EPSG:32618`, `+proj=… +type=crs`), or
    /// nil when unknown.
    public var projDefinition: String? {
        switch self {
        case .epsg(let code): "EPSG:\(code)"
        case .userDefined(let proj): proj
        case .esriWKT(let wkt): wkt
        case .unknown: nil
        }
    }

    public var description: String {
        switch self {
        case .epsg(let code): "EPSG:\(code)"
        case .userDefined(let proj): "user-defined (\(proj))"
        case .esriWKT(let wkt): "ESRI PE string (\(wkt.prefix(80))\(wkt.count > 80 ? "…" : ""))"
        case .unknown(let reason): "unknown (\(reason))"
        }
    }
}
