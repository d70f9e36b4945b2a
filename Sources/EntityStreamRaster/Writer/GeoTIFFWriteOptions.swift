/// How ``GeoTIFFWriter`` lays out and georeferences a file: every layout,
/// compression, predictor, planar configuration, byte order and GeoTIFF
/// variant the reader handles, so tests write rasters with values they
/// chose. A value type; `Sendable`.
public struct GeoTIFFWriteOptions: Sendable, Hashable {
    /// The georeferencing tags to write.
    public enum Georeferencing: Sendable, Hashable {
        /// No georeferencing tags.
        case none
        /// The raw tags, each written as given when present: ModelTiepointTag
        /// (I J K X Y Z …), ModelPixelScaleTag (Sx Sy Sz; a negative Sy
        /// included) and ModelTransformationTag (a 4×4 row-major matrix, any
        /// count) — all three together if asked, to test which one wins.
        case tags(tiepoints: [Double]?, pixelScale: [Double]?, transformation: [Double]?)
        /// A geotransform written as GDAL writes one: tiepoint and scale when
        /// it is north-up and axis-aligned, the transformation matrix
        /// otherwise; for PixelIsPoint the tags name the top-left cell's
        /// centre, so reading gives this geotransform back.
        case geoTransform(GeoTransform)
    }

    /// The CRS GeoKeys to write.
    public enum CRS: Sendable, Hashable {
        /// No CRS keys.
        case none
        /// GTModelTypeGeoKey 1 and ProjectedCSTypeGeoKey = the code.
        case projected(epsg: Int)
        /// GTModelTypeGeoKey 2 and GeographicTypeGeoKey = the code.
        case geographic(epsg: Int)
        /// GTModelTypeGeoKey 3 (geocentric), which the reader does not support.
        case geocentric
        /// A user-defined CRS, written by libgeotiff from a PROJ string (`GTIFSetFromProj4`).
        case userDefined(proj: String)
        /// GTModelTypeGeoKey 1 and ProjectedCSTypeGeoKey 32767 (user-defined)
        /// with no parameters at all: a CRS nobody can know.
        case userDefinedWithoutParameters
        /// As ArcGIS writes a custom coordinate system: GTModelTypeGeoKey 1,
        /// ProjectedCSTypeGeoKey 32767 and PCSCitationGeoKey
        /// `ESRI PE String = <wkt>`, no other parameters.
        case esriPEString(wkt: String)
    }

    public var blockShape: TIFFBlockShape
    public var compression: TIFFCompression
    public var predictor: TIFFPredictor
    public var planarConfiguration: PlanarConfiguration
    public var georeferencing: Georeferencing
    /// GTRasterTypeGeoKey (written whenever GeoKeys are written, or when PixelIsPoint).
    public var rasterType: RasterType
    public var crs: CRS
    /// The GDAL_NODATA tag (its text as ``NoDataValue/text``).
    public var noData: NoDataValue?
    /// Big-endian ("MM") instead of little-endian ("II") byte order.
    public var bigEndian: Bool
    /// BigTIFF instead of classic TIFF.
    public var bigTIFF: Bool
    /// Blocks (libtiff's tile/strip numbers) left unwritten: a sparse file,
    /// whose missing blocks read as NoData (or 0).
    public var unwrittenBlocks: Set<Int>
    /// With JPEG compression and 3 uint8 bands: write them as GDAL's
    /// `COMPRESS=JPEG PHOTOMETRIC=YCBCR` does (RGB given, stored as
    /// subsampled YCbCr by libtiff's `JPEGCOLORMODE_RGB`).
    public var jpegYCbCr = false
    /// The JPEG quality (1–100) when compressing with JPEG.
    public var jpegQuality = 90

    public init(blockShape: TIFFBlockShape = .strips(rowsPerStrip: 8), compression: TIFFCompression = .none,
                predictor: TIFFPredictor = .none, planarConfiguration: PlanarConfiguration = .contiguous,
                georeferencing: Georeferencing = .none, rasterType: RasterType = .pixelIsArea, crs: CRS = .none,
                noData: NoDataValue? = nil, bigEndian: Bool = false, bigTIFF: Bool = false, unwrittenBlocks: Set<Int> = []) {
        self.blockShape = blockShape
        self.compression = compression
        self.predictor = predictor
        self.planarConfiguration = planarConfiguration
        self.georeferencing = georeferencing
        self.rasterType = rasterType
        self.crs = crs
        self.noData = noData
        self.bigEndian = bigEndian
        self.bigTIFF = bigTIFF
        self.unwrittenBlocks = unwrittenBlocks
    }
}
