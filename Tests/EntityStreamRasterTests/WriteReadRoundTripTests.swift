import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Every layout, pixel type, compression, predictor and planar
/// configuration: the test writes values it chose with libtiff and reads
/// every one back.
@Suite(.bounded)
struct WriteReadRoundTripTests {
    struct Layout: CustomTestStringConvertible, Sendable {
        var pixelType: PixelType
        var shape: TIFFBlockShape
        var planar: PlanarConfiguration
        var compression: TIFFCompression
        var predictor: TIFFPredictor = .none
        var bands = 3
        var bigEndian = false
        var bigTIFF = false

        var testDescription: String {
            "\(pixelType.rawValue) \(shape) \(planar) \(compression) predictor \(predictor.rawValue) bands \(bands)\(bigEndian ? " big-endian" : "")\(bigTIFF ? " BigTIFF" : "")"
        }
    }

    static let layouts: [Layout] = {
        var all: [Layout] = []
        for type in PixelType.allCases {
            for shape in [TIFFBlockShape.strips(rowsPerStrip: 3), .tiles(width: 16, height: 16)] {
                for planar in [PlanarConfiguration.contiguous, .separate] {
                    for compression in [TIFFCompression.none, .lzw, .deflate, .packBits] {
                        all.append(Layout(pixelType: type, shape: shape, planar: planar, compression: compression))
                    }
                }
            }
            let predictor: TIFFPredictor = type.isFloatingPoint ? .floatingPoint : .horizontal
            for compression in [TIFFCompression.lzw, .deflate] {
                all.append(Layout(pixelType: type, shape: .tiles(width: 32, height: 16), planar: .contiguous, compression: compression, predictor: predictor))
                all.append(Layout(pixelType: type, shape: .strips(rowsPerStrip: 5), planar: .separate, compression: compression, predictor: predictor))
            }
            all.append(Layout(pixelType: type, shape: .strips(rowsPerStrip: 1), planar: .contiguous, compression: .none, bands: 1))
            all.append(Layout(pixelType: type, shape: .strips(rowsPerStrip: 100), planar: .separate, compression: .lzw, bands: 5))
            all.append(Layout(pixelType: type, shape: .tiles(width: 16, height: 32), planar: .separate, compression: .deflate,
                              predictor: .horizontal, bigEndian: true))
            all.append(Layout(pixelType: type, shape: .strips(rowsPerStrip: 4), planar: .contiguous, compression: .packBits, bigEndian: true))
            all.append(Layout(pixelType: type, shape: .tiles(width: 16, height: 16), planar: .contiguous, compression: .lzw, bigTIFF: true))
        }
        return all
    }()

    /// Values that probe each type: its extremes, zero, and for floats
    /// fractions, subnormals, infinities and NaN; then a pattern that differs
    /// in every band, column and row.
    static func value(_ type: PixelType, band: Int, column: Int, row: Int) -> Double {
        let special: [Double]
        switch type {
        case .uint8: special = [0, 255, 1, 254]
        case .int8: special = [-128, 127, 0, -1]
        case .uint16: special = [0, 65535, 1, 65534]
        case .int16: special = [-32768, 32767, 0, -1]
        case .uint32: special = [0, 4_294_967_295, 4_294_967_294, 16_777_217]
        case .int32: special = [-2_147_483_648, 2_147_483_647, 0, -16_777_217]
        case .float32: special = [Double(Float.greatestFiniteMagnitude), Double(Float.leastNonzeroMagnitude), Double(Float(0.1)), -.infinity, .nan, -0.0]
        case .float64: special = [.greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1, .pi, .infinity, .nan]
        case .int64: special = [-0x1p63, 0x1p63.nextDown, 0, -1, 0x1p53, -5_000_000_000]
        case .uint64: special = [0, 0x1p64.nextDown, 1, 0x1p63, 5_000_000_000]
        }
        let index = column + 37 * row + 1000 * band
        if index % 11 < special.count { return special[index % 11] }
        let pattern = Double((column * 7 + row * 13 + band * 31) % 100)
        switch type {
        case .uint8, .uint16, .uint32, .uint64: return pattern
        case .int8, .int16, .int32, .int64: return pattern - 50
        case .float32: return Double(Float(pattern / 8 - 3.3))
        case .float64: return pattern / 8 - 3.3
        }
    }

    /// Same value, counting NaN equal to NaN and telling -0.0 from 0.0.
    static func identical(_ a: Double?, _ b: Double) -> Bool {
        guard let a else { return false }
        return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }

    /// Every sample written is read back exactly, cell by cell, with the file's declared layout.
    @Test("round trip", arguments: layouts)
    func roundTrip(_ layout: Layout) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("image.tif")
        let (width, height) = (37, 23)
        let image = RasterImage(width: width, height: height, bandCount: layout.bands, pixelType: layout.pixelType) { band, column, row in
            Self.value(layout.pixelType, band: band, column: column, row: row)
        }
        var options = GeoTIFFWriteOptions(blockShape: layout.shape, compression: layout.compression, predictor: layout.predictor,
                                          planarConfiguration: layout.planar)
        options.bigEndian = layout.bigEndian
        options.bigTIFF = layout.bigTIFF
        try GeoTIFFWriter.write(image, to: path, options: options)

        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.width == width && raster.info.height == height && raster.info.bandCount == layout.bands)
        #expect(raster.info.pixelType == layout.pixelType)
        if case .strips(let rows) = layout.shape {
            #expect(raster.info.blockShape == .strips(rowsPerStrip: min(rows, height)))
        } else {
            #expect(raster.info.blockShape == layout.shape)
        }
        #expect(raster.info.compression == layout.compression)
        #expect(raster.info.planarConfiguration == (layout.bands > 1 ? layout.planar : raster.info.planarConfiguration))
        var mismatches = 0
        for row in 0..<height {
            for column in 0..<width {
                let sample = try #require(try raster.sample(column: column, row: row))
                #expect(sample.column == column && sample.row == row && sample.pixelType == layout.pixelType)
                for band in 0..<layout.bands where !Self.identical(sample.values[band], image.value(band: band, column: column, row: row)) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
        #expect(try raster.sample(column: width, row: 0) == nil)
        #expect(try raster.sample(column: 0, row: height) == nil)
        #expect(try raster.sample(column: -1, row: 0) == nil)
    }

    /// The Runtime's attributes: Band_0…Band_n-1 (0-based) then Pixel.Type,
    /// integers for integer types and doubles at full precision for floats.
    @Test
    func attributesNameBandsFromZero() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("attributes.tif")
        let floats = RasterImage(width: 1, height: 1, bandCount: 2, pixelType: .float32, values: [Double(Float(0.18909964)), -1.5])
        try GeoTIFFWriter.write(floats, to: path)
        let cell = try #require(try GeoTIFFRaster(path: path).sample(column: 0, row: 0))
        #expect(cell.attributes.members.map(\.key) == ["Band_0", "Band_1", "Pixel.Type"])
        #expect(cell.attributes["Band_0"] == .double(Double(Float(0.18909964))))
        #expect(cell.attributes["Pixel.Type"] == .string("float32"))

        let integers = RasterImage(width: 1, height: 1, bandCount: 1, pixelType: .uint32, values: [4_294_967_295])
        try GeoTIFFWriter.write(integers, to: path)
        let wide = try #require(try GeoTIFFRaster(path: path).sample(column: 0, row: 0))
        #expect(wide.attributes["Band_0"] == .int(4_294_967_295))
        #expect(wide.attributes["Pixel.Type"] == .string("uint32"))
        #expect(wide.attributes["NoData"] == nil)
    }

    /// The writer refuses values the pixel type cannot hold exactly, naming the value.
    @Test
    func writerRefusesUnrepresentableValues() throws {
        let directory = try TemporaryDirectory()
        let image = RasterImage(width: 2, height: 1, pixelType: .uint8, values: [1, 256])
        #expect(throws: RasterError.self) { try GeoTIFFWriter.write(image, to: directory.file("bad.tif")) }
        let fraction = RasterImage(width: 1, height: 1, pixelType: .int16, values: [0.5])
        #expect(throws: RasterError.self) { try GeoTIFFWriter.write(fraction, to: directory.file("bad.tif")) }
        let float = RasterImage(width: 1, height: 1, pixelType: .float32, values: [0.1])
        #expect(throws: RasterError.self) { try GeoTIFFWriter.write(float, to: directory.file("bad.tif")) }
    }
}
