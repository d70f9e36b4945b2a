/// How a raster is opened. `Sendable`.
public struct RasterOpenOptions: Sendable, Hashable {
    /// Bytes of decoded tiles/strips kept in the raster's LRU cache (default
    /// 64 MiB). At least one block is always kept, so a block larger than
    /// this is still read (one at a time).
    public var cacheBytes: Int
    /// The largest decoded tile/strip accepted (default 256 MiB): a file
    /// whose blocks are larger fails to open with ``RasterError/blockTooLarge(path:bytes:limit:)``
    /// rather than allocating without bound. Also bounds libtiff's own allocations.
    public var maximumBlockBytes: Int
    /// GDAL's `GTIFF_HONOUR_NEGATIVE_SCALEY=YES`: a negative ModelPixelScale Y
    /// makes the raster south-up (default false: north-up, as GDAL by default).
    public var honourNegativeScaleY: Bool
    /// GDAL's `GTIFF_POINT_GEO_IGNORE=YES`: do not shift PixelIsPoint rasters
    /// half a cell (default false: shift, as GDAL by default).
    public var pointGeoIgnore: Bool
    /// Coordinate transformers kept per raster, one per spatial reference
    /// identified in (default 8; least recently created dropped first).
    public var maximumTransformers: Int

    public init(cacheBytes: Int = 64 << 20, maximumBlockBytes: Int = 256 << 20, honourNegativeScaleY: Bool = false,
                pointGeoIgnore: Bool = false, maximumTransformers: Int = 8) {
        self.cacheBytes = max(0, cacheBytes)
        self.maximumBlockBytes = max(1, maximumBlockBytes)
        self.honourNegativeScaleY = honourNegativeScaleY
        self.pointGeoIgnore = pointGeoIgnore
        self.maximumTransformers = max(1, maximumTransformers)
    }
}
