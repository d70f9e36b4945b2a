import EntityStreamModel

/// What identify answers for a point inside a raster: the cell's values
/// (``sample``) and the cell's extent in the point's spatial reference.
///
/// ``extent`` is the envelope of the cell's four corners transformed into
/// the point's spatial reference (exactly the cell for an axis-aligned
/// raster identified in its own CRS; the bounding box of the reprojected or
/// rotated footprint otherwise). Its `wkid` is the point's WKID (the
/// raster's EPSG code when identified in the raster's own CRS, nil when that
/// is not an EPSG code). A value type; `Sendable`.
public struct RasterCell: Sendable, Hashable {
    public let sample: RasterSample
    public let extent: Envelope

    public init(sample: RasterSample, extent: Envelope) {
        self.sample = sample
        self.extent = extent
    }

    public var column: Int { sample.column }
    public var row: Int { sample.row }
    public var values: [Double?] { sample.values }
    public var pixelType: PixelType { sample.pixelType }
    public var isNoData: Bool { sample.isNoData }
    /// The Runtime's attributes (``RasterSample/attributes``).
    public var attributes: JSONObject { sample.attributes }
}
