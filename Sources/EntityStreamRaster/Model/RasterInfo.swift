import EntityStreamModel

/// What opening a GeoTIFF found: size, bands, sample type, layout,
/// georeferencing, CRS and NoData. A value type; `Sendable`.
public struct RasterInfo: Sendable, Hashable {
    public let path: String
    public let width: Int
    public let height: Int
    public let bandCount: Int
    public let pixelType: PixelType
    public let blockShape: TIFFBlockShape
    public let planarConfiguration: PlanarConfiguration
    public let compression: TIFFCompression
    public let predictor: TIFFPredictor?
    /// Bytes of one decoded tile/strip (one plane's, when planar-separate).
    public let blockByteCount: Int
    /// Tiles/strips in the file (all planes).
    public let blockCount: Int
    /// Pixel/line → raster CRS, or nil when not georeferenced (see ``notGeoreferencedReason``).
    public let geoTransform: GeoTransform?
    /// Why there is no geotransform (nil when there is one).
    public let notGeoreferencedReason: String?
    /// PixelIsArea or PixelIsPoint, as the GeoKeys say.
    public let rasterType: RasterType
    public let crs: RasterCRS
    public let noData: NoDataValue?

    /// The raster's extent in its CRS (envelope of its four corners), when
    /// georeferenced; `wkid` is the EPSG code when there is one.
    public var extent: Envelope? {
        guard let geoTransform else { return nil }
        let corners = [geoTransform.point(column: 0, row: 0), geoTransform.point(column: Double(width), row: 0),
                       geoTransform.point(column: Double(width), row: Double(height)), geoTransform.point(column: 0, row: Double(height))]
        return Envelope(xmin: corners.map(\.x).min() ?? 0, ymin: corners.map(\.y).min() ?? 0,
                        xmax: corners.map(\.x).max() ?? 0, ymax: corners.map(\.y).max() ?? 0, wkid: crs.epsgCode)
    }
}
