import CLibGeoTIFF
import CLibTIFF

/// Writes GeoTIFFs through libtiff and libgeotiff, for tests and fixtures:
/// strips or tiles, none/LZW/Deflate/PackBits/JPEG (YCbCr too) with predictors, planar
/// configuration 1 or 2, any band count, the eight pixel types, either byte
/// order, classic or BigTIFF, tiepoint+scale or a transformation matrix,
/// PixelIsPoint, CRS GeoKeys, GDAL_NODATA, and sparse (unwritten) blocks.
///
/// Throws ``RasterError/invalidWrite(path:detail:)`` for an impossible request
/// (value count, a value the pixel type cannot hold exactly, a predictor
/// the type or codec does not take, tiles not a multiple of 16) and
/// ``RasterError/writeFailed(path:detail:)`` when libtiff or libgeotiff fails.
/// Stateless; safe from any thread (each call uses its own handles).
public enum GeoTIFFWriter {
    public static func write(_ image: RasterImage, to path: String, options: GeoTIFFWriteOptions = GeoTIFFWriteOptions()) throws(RasterError) {
        func invalid(_ detail: String) -> RasterError { .invalidWrite(path: path, detail: detail) }
        guard image.width > 0, image.height > 0, image.bandCount > 0, image.width <= Int(UInt32.max),
              image.height <= Int(UInt32.max), image.bandCount <= Int(UInt16.max) else {
            throw invalid("a \(image.width)×\(image.height) image of \(image.bandCount) bands")
        }
        guard image.values.count == image.width * image.height * image.bandCount else {
            throw invalid("\(image.values.count) values for \(image.width)×\(image.height)×\(image.bandCount) samples")
        }
        if let index = image.values.firstIndex(where: { !image.pixelType.canRepresent($0) }) {
            throw invalid("value \(image.values[index]) at index \(index) is not exactly representable as \(image.pixelType.rawValue)")
        }
        let (blockWidth, blockHeight, tiled): (Int, Int, Bool)
        switch options.blockShape {
        case .strips(let rows): (blockWidth, blockHeight, tiled) = (image.width, min(max(rows, 1), image.height), false)
        case .tiles(let width, let height):
            guard width > 0, height > 0, width % 16 == 0, height % 16 == 0 else { throw invalid("tiles of \(width)×\(height): TIFF tiles are multiples of 16") }
            (blockWidth, blockHeight, tiled) = (width, height, true)
        }
        let separate = options.planarConfiguration == .separate && image.bandCount > 1
        guard let layout = BlockLayout(width: image.width, height: image.height, bandCount: image.bandCount,
                                       bytesPerSample: image.pixelType.byteCount, blockWidth: blockWidth, blockHeight: blockHeight,
                                       isTiled: tiled, isPlanarSeparate: separate) else { throw invalid("sizes overflow") }
        if options.predictor != .none {
            guard [TIFFCompression.lzw, .deflate, .adobeDeflate, .zstd, .lzma].contains(options.compression) else {
                throw invalid("a predictor needs LZW, Deflate, ZSTD or LZMA compression, not \(options.compression)")
            }
            if options.predictor == .floatingPoint && !image.pixelType.isFloatingPoint {
                throw invalid("the floating-point predictor needs a float pixel type, not \(image.pixelType.rawValue)")
            }
            if options.predictor == .floatingPoint && options.bigEndian {
                // libtiff 4.5 (Debian 12) writes these wrongly: GDAL's own files read back as garbage.
                throw invalid("big-endian files with the floating-point predictor are not written (libtiff 4.5 writes them wrongly)")
            }
        }
        guard TIFFIsCODECConfigured(options.compression.rawValue) == 1 else { throw invalid("libtiff cannot encode \(options.compression)") }

        let mode = "w" + (options.bigEndian ? "b" : "l") + (options.bigTIFF ? "8" : "")
        let tiff = try TIFFHandle(path: path, mode: mode, maximumAllocation: 0)
        func failed(_ what: String) -> RasterError { .writeFailed(path: path, detail: "\(what)\(tiff.takeError().map { ": \($0)" } ?? "")") }
        func set16(_ tag: Int32, _ value: UInt16) throws(RasterError) {
            guard es_tiff_set_uint16(tiff.pointer, UInt32(tag), value) == 1 else { throw failed("setting tag \(tag)") }
        }
        func set32(_ tag: Int32, _ value: Int) throws(RasterError) {
            guard es_tiff_set_uint32(tiff.pointer, UInt32(tag), UInt32(value)) == 1 else { throw failed("setting tag \(tag)") }
        }
        try set32(TIFFTAG_IMAGEWIDTH, image.width)
        try set32(TIFFTAG_IMAGELENGTH, image.height)
        try set16(TIFFTAG_BITSPERSAMPLE, UInt16(image.pixelType.byteCount * 8))
        try set16(TIFFTAG_SAMPLESPERPIXEL, UInt16(image.bandCount))
        try set16(TIFFTAG_SAMPLEFORMAT, image.pixelType.tiffSampleFormat)
        try set16(TIFFTAG_PLANARCONFIG, options.planarConfiguration.rawValue)
        if options.jpegYCbCr {
            guard options.compression == .jpeg, image.bandCount == 3, image.pixelType == .uint8, !separate else {
                throw invalid("YCbCr needs JPEG compression and 3 contiguous uint8 bands")
            }
            try set16(TIFFTAG_PHOTOMETRIC, UInt16(PHOTOMETRIC_YCBCR))
        } else {
            try set16(TIFFTAG_PHOTOMETRIC, UInt16(PHOTOMETRIC_MINISBLACK))
        }
        if image.bandCount > 1 && !options.jpegYCbCr {
            let extra = [UInt16](repeating: UInt16(EXTRASAMPLE_UNSPECIFIED), count: image.bandCount - 1)
            guard es_tiff_set_extra_samples(tiff.pointer, UInt16(extra.count), extra) == 1 else { throw failed("setting ExtraSamples") }
        }
        try set16(TIFFTAG_COMPRESSION, options.compression.rawValue)
        if options.compression == .jpeg {
            try set32(TIFFTAG_JPEGQUALITY, min(max(options.jpegQuality, 1), 100))
            if options.jpegYCbCr { try set32(TIFFTAG_JPEGCOLORMODE, Int(JPEGCOLORMODE_RGB)) }
        }
        if options.predictor != .none { try set16(TIFFTAG_PREDICTOR, options.predictor.rawValue) }
        if tiled {
            try set32(TIFFTAG_TILEWIDTH, blockWidth)
            try set32(TIFFTAG_TILELENGTH, blockHeight)
        } else {
            try set32(TIFFTAG_ROWSPERSTRIP, blockHeight)
        }
        try writeGeoreferencing(options, tiff: tiff, path: path)
        if let noData = options.noData {
            guard es_tiff_set_ascii(tiff.pointer, UInt32(ES_TIFFTAG_GDAL_NODATA), noData.text) == 1 else { throw failed("setting GDAL_NODATA") }
        }

        let buffer = UnsafeMutableRawPointer.allocate(byteCount: layout.blockByteCount, alignment: 16)
        defer { buffer.deallocate() }
        for block in 0..<layout.blockCount where !options.unwrittenBlocks.contains(block) {
            fill(block, of: image, layout: layout, into: buffer)
            let size = tmsize_t(tiled ? layout.blockByteCount : layout.byteCount(ofBlock: block))
            let written = tiled ? TIFFWriteEncodedTile(tiff.pointer, UInt32(block), buffer, size)
                                : TIFFWriteEncodedStrip(tiff.pointer, UInt32(block), buffer, size)
            guard written >= 0 else { throw failed("writing block \(block)") }
        }
        guard TIFFWriteDirectory(tiff.pointer) == 1 else { throw failed("writing the directory") }
    }

    /// Copies the samples of `block` into `buffer` (padding outside the image is 0).
    private static func fill(_ block: Int, of image: RasterImage, layout: BlockLayout, into buffer: UnsafeMutableRawPointer) {
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: layout.blockByteCount)
        let plane = layout.isPlanarSeparate ? block / layout.blocksPerPlane : 0
        let inPlane = block % layout.blocksPerPlane
        let firstRow = (inPlane / layout.blocksAcross) * layout.blockHeight
        let firstColumn = (inPlane % layout.blocksAcross) * layout.blockWidth
        let bands = layout.isPlanarSeparate ? plane..<(plane + 1) : 0..<layout.bandCount
        for row in firstRow..<min(firstRow + layout.blockHeight, image.height) {
            for column in firstColumn..<min(firstColumn + layout.blockWidth, image.width) {
                for band in bands {
                    image.pixelType.store(image.value(band: band, column: column, row: row), to: buffer,
                                          at: layout.byteOffset(column: column, row: row, band: band))
                }
            }
        }
    }

    /// The georeferencing tags and the GeoKeys.
    private static func writeGeoreferencing(_ options: GeoTIFFWriteOptions, tiff: TIFFHandle, path: String) throws(RasterError) {
        func setDoubles(_ tag: Int32, _ values: [Double]) throws(RasterError) {
            guard values.count <= Int(UInt16.max), es_tiff_set_doubles(tiff.pointer, UInt32(tag), UInt16(values.count), values) == 1 else {
                throw RasterError.writeFailed(path: path, detail: "setting tag \(tag)\(tiff.takeError().map { ": \($0)" } ?? "")")
            }
        }
        switch options.georeferencing {
        case .none: break
        case .tags(let tiepoints, let pixelScale, let transformation):
            if let tiepoints { try setDoubles(ES_TIFFTAG_GEOTIEPOINTS, tiepoints) }
            if let pixelScale { try setDoubles(ES_TIFFTAG_GEOPIXELSCALE, pixelScale) }
            if let transformation { try setDoubles(ES_TIFFTAG_GEOTRANSMATRIX, transformation) }
        case .geoTransform(let transform):
            // PixelIsPoint: the tags name the top-left cell's centre (GDAL's write side).
            let written = options.rasterType == .pixelIsPoint ? (transform.shifted(columns: 0.5, rows: 0.5) ?? transform) : transform
            let c = written.coefficients
            if c[2] == 0 && c[4] == 0 && c[5] < 0 {
                try setDoubles(ES_TIFFTAG_GEOTIEPOINTS, [0, 0, 0, c[0], c[3], 0])
                try setDoubles(ES_TIFFTAG_GEOPIXELSCALE, [c[1], -c[5], 0])
            } else {
                try setDoubles(ES_TIFFTAG_GEOTRANSMATRIX, [c[1], c[2], 0, c[0], c[4], c[5], 0, c[3], 0, 0, 0, 0, 0, 0, 0, 1])
            }
        }
        if options.crs == .none && options.rasterType == .pixelIsArea { return }
        let messages = UnsafeMutablePointer<es_gtif_messages>.allocate(capacity: 1)
        defer { messages.deallocate() }
        guard let gtif = es_gtif_new(UnsafeMutableRawPointer(tiff.pointer), messages) else {
            throw RasterError.writeFailed(path: path, detail: "libgeotiff: \(String(cString: es_gtif_messages_first_error(messages)))")
        }
        defer { GTIFFree(gtif) }
        var ok = true
        func key(_ id: Int32, _ value: Int) {
            guard value >= 0 && value <= Int(UInt16.max) else {
                ok = false
                return
            }
            ok = ok && es_gtif_key_set_short(gtif, id, UInt16(value)) == 1
        }
        switch options.crs {
        case .none: break
        case .projected(let code):
            key(GeoKeyReader.modelTypeKey, 1)
            key(GeoKeyReader.projectedCSTypeKey, code)
        case .geographic(let code):
            key(GeoKeyReader.modelTypeKey, 2)
            key(GeoKeyReader.geographicTypeKey, code)
        case .geocentric:
            key(GeoKeyReader.modelTypeKey, 3)
        case .userDefined(let proj):
            ok = GTIFSetFromProj4(gtif, proj) != 0
        case .userDefinedWithoutParameters:
            key(GeoKeyReader.modelTypeKey, 1)
            key(GeoKeyReader.projectedCSTypeKey, Int(GeoKeyReader.userDefined))
        case .esriPEString(let wkt):
            key(GeoKeyReader.modelTypeKey, 1)
            key(GeoKeyReader.projectedCSTypeKey, Int(GeoKeyReader.userDefined))
            ok = ok && es_gtif_key_set_ascii(gtif, GeoKeyReader.citationKeys[0], GeoKeyReader.esriPEPrefix + wkt) == 1
        }
        key(GeoKeyReader.rasterTypeKey, Int(options.rasterType.rawValue))
        guard ok else { throw RasterError.invalidWrite(path: path, detail: "GeoKeys libgeotiff cannot write for \(options.crs)") }
        guard GTIFWriteKeys(gtif) != 0 else {
            throw RasterError.writeFailed(path: path, detail: "libgeotiff could not write the GeoKeys: \(String(cString: es_gtif_messages_first_error(messages)))")
        }
    }
}
