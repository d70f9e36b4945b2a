import CLibGeoTIFF
import CLibTIFF

/// The first image directory of an open TIFF, read and checked: size,
/// bands, sample type, block layout, compression, and the GeoTIFF and GDAL
/// tags. Throws a ``RasterError`` naming what is unsupported or malformed;
/// the block layout is cross-checked against libtiff's own tile/strip
/// counts and sizes.
struct TIFFImageDirectory {
    var layout: BlockLayout
    var pixelType: PixelType
    var blockShape: TIFFBlockShape
    var planar: PlanarConfiguration
    var compression: TIFFCompression
    var predictor: TIFFPredictor?
    var georeferencing: GeoreferencingTags
    var crs: RasterCRS
    var noData: NoDataValue?

    init(_ tiff: TIFFHandle, maximumBlockBytes: Int) throws(RasterError) {
        let path = tiff.path
        func unsupported(_ detail: String) -> RasterError { .unsupported(path: path, detail: detail) }
        guard let width = tiff.uint32(UInt32(TIFFTAG_IMAGEWIDTH), defaulted: false),
              let height = tiff.uint32(UInt32(TIFFTAG_IMAGELENGTH), defaulted: false), width > 0, height > 0 else {
            throw RasterError.unreadableTIFF(path: path, detail: "the image has no width or height")
        }
        let bands = tiff.uint16(UInt32(TIFFTAG_SAMPLESPERPIXEL)) ?? 1
        let bits = tiff.uint16(UInt32(TIFFTAG_BITSPERSAMPLE)) ?? 1
        let format = tiff.uint16(UInt32(TIFFTAG_SAMPLEFORMAT)) ?? 1
        guard let pixelType = PixelType(tiffSampleFormat: format, bitsPerSample: bits) else {
            let supported = "supported: 8/16/32/64-bit integers, 32/64-bit floats"
            if format == 5 || format == 6 {
                // GDAL's CInt16/CInt32/CFloat32/CFloat64: a cell would have two values per band.
                throw unsupported("complex samples (\(format == 5 ? "CInt" : "CFloat")\(bits / 2) real and imaginary parts) are not read: identify answers real values only (\(supported)); extract a part first, e.g. gdal_translate -ot Float32")
            }
            if bits == 12 {
                throw unsupported("12-bit samples (as 12-bit JPEG writes them) are not read (\(supported)); convert first, e.g. gdal_translate -ot UInt16")
            }
            let formatName = [1: "unsigned integer", 2: "signed integer", 3: "IEEE float", 4: "void"][Int(format)] ?? "format \(format)"
            throw unsupported("sample format \(formatName) with \(bits) bits per sample (\(supported))")
        }
        guard bands >= 1 else { throw unsupported("0 samples per pixel") }
        let planarCode = tiff.uint16(UInt32(TIFFTAG_PLANARCONFIG)) ?? 1
        guard let planar = PlanarConfiguration(rawValue: planarCode) else { throw unsupported("PlanarConfiguration \(planarCode)") }
        let compression = TIFFCompression(rawValue: tiff.uint16(UInt32(TIFFTAG_COMPRESSION)) ?? 1)
        guard TIFFIsCODECConfigured(compression.rawValue) == 1 else {
            throw unsupported("\(compression) is not decoded by the installed libtiff")
        }
        let photometric = tiff.uint16(UInt32(TIFFTAG_PHOTOMETRIC), defaulted: false)
        if photometric == UInt16(PHOTOMETRIC_YCBCR) {
            // GDAL's usual JPEG layout (COMPRESS=JPEG PHOTOMETRIC=YCBCR): libtiff's
            // JPEG codec converts to RGB itself, chroma subsampling included, and
            // then sizes blocks as 3 samples per pixel.
            guard compression == .jpeg, bands == 3, pixelType == .uint8 else {
                throw unsupported("YCbCr colour (photometric 6) is read only JPEG-compressed with 3 8-bit bands (this file: \(compression), \(bands) bands of \(pixelType.rawValue))")
            }
            guard es_tiff_set_uint16(tiff.pointer, UInt32(TIFFTAG_JPEGCOLORMODE), UInt16(JPEGCOLORMODE_RGB)) == 1 else {
                throw unsupported("libtiff refused to convert JPEG YCbCr to RGB\(tiff.takeError().map { ": \($0)" } ?? "")")
            }
        }
        let predictor = tiff.uint16(UInt32(TIFFTAG_PREDICTOR), defaulted: false).flatMap(TIFFPredictor.init(rawValue:))
        let tiled = TIFFIsTiled(tiff.pointer) != 0
        let blockWidth: Int, blockHeight: Int
        if tiled {
            blockWidth = Int(tiff.uint32(UInt32(TIFFTAG_TILEWIDTH)) ?? 0)
            blockHeight = Int(tiff.uint32(UInt32(TIFFTAG_TILELENGTH)) ?? 0)
        } else {
            blockWidth = Int(width)
            blockHeight = min(Int(tiff.uint32(UInt32(TIFFTAG_ROWSPERSTRIP)) ?? height), Int(height))
        }
        guard let layout = BlockLayout(width: Int(width), height: Int(height), bandCount: Int(bands), bytesPerSample: pixelType.byteCount,
                                       blockWidth: blockWidth, blockHeight: blockHeight, isTiled: tiled,
                                       isPlanarSeparate: planar == .separate && bands > 1) else {
            throw RasterError.unreadableTIFF(path: path, detail: "impossible block layout: \(width)×\(height) image in \(blockWidth)×\(blockHeight) blocks")
        }
        let libtiffBlockBytes = tiled ? TIFFTileSize64(tiff.pointer) : TIFFStripSize64(tiff.pointer)
        let libtiffBlocks = tiled ? TIFFNumberOfTiles(tiff.pointer) : TIFFNumberOfStrips(tiff.pointer)
        if libtiffBlockBytes > UInt64(maximumBlockBytes) {
            throw RasterError.blockTooLarge(path: path, bytes: libtiffBlockBytes, limit: maximumBlockBytes)
        }
        guard libtiffBlockBytes == UInt64(layout.blockByteCount), Int(libtiffBlocks) == layout.blockCount else {
            throw unsupported("libtiff's layout (\(libtiffBlocks) blocks of \(libtiffBlockBytes) bytes) differs from the expected \(layout.blockCount) blocks of \(layout.blockByteCount) bytes")
        }
        _ = tiff.takeError()

        var tags = GeoreferencingTags()
        tags.pixelScale = tiff.doubles(UInt32(ES_TIFFTAG_GEOPIXELSCALE))
        tags.tiepoints = tiff.doubles(UInt32(ES_TIFFTAG_GEOTIEPOINTS))
        tags.transformation = tiff.doubles(UInt32(ES_TIFFTAG_GEOTRANSMATRIX))
        let keys = GeoKeyReader.read(tiff)
        tags.rasterType = keys.rasterType

        var noData: NoDataValue?
        if let text = tiff.ascii(UInt32(ES_TIFFTAG_GDAL_NODATA)) {
            guard let value = NoDataValue(text: text) else { throw RasterError.invalidNoData(path: path, text: text) }
            noData = value
        }
        self.layout = layout
        self.pixelType = pixelType
        self.blockShape = tiled ? .tiles(width: blockWidth, height: blockHeight) : .strips(rowsPerStrip: blockHeight)
        self.planar = planar
        self.compression = compression
        self.predictor = predictor
        self.georeferencing = tags
        self.crs = keys.crs
        self.noData = noData
    }
}
