/// GeoTIFF's `GTRasterTypeGeoKey` (1025): what the model coordinates of a
/// pixel name. `Sendable`.
public enum RasterType: UInt16, Sendable, Hashable {
    /// Pixel (0, 0) is the top-left corner of the top-left cell (the default).
    case pixelIsArea = 1
    /// Pixel (0, 0) is the centre of the top-left cell; GDAL shifts such
    /// rasters half a cell up-left to a corner-based geotransform.
    case pixelIsPoint = 2
}
