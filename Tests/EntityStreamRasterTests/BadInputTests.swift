import Foundation
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Bad files and bad points answer a clear RasterError naming what was
/// wrong; nothing crashes and nothing is silently wrong.
@Suite(.bounded)
struct BadInputTests {
    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A missing file, an empty file, a text file and a PNG are not TIFFs (or cannot be opened), said as such.
    @Test
    func notATIFF() throws {
        let directory = try TemporaryDirectory()
        #expect {
            try GeoTIFFRaster(path: directory.file("missing.tif"))
        } throws: { error in
            guard case RasterError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("No such file")
        }
        #expect(throws: RasterError.cannotOpen(path: directory.path, reason: "it is a directory")) { try GeoTIFFRaster(path: directory.path) }
        for (name, bytes) in [("empty.tif", [UInt8]()), ("text.tif", Array("hello, this is not an image\n".utf8)),
                              ("png.tif", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])] {
            let path = directory.file(name)
            try Self.write(bytes, to: path)
            #expect {
                try GeoTIFFRaster(path: path)
            } throws: { error in
                guard case RasterError.notTIFF(let errorPath, _) = error else { return false }
                return errorPath == path
            }
        }
    }

    /// A file cut in half is a truncated TIFF, at open (its directory is gone) — never a crash.
    @Test
    func truncatedFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("whole.tif")
        try GeoTIFFWriter.write(RasterImage(width: 64, height: 64, pixelType: .uint8) { _, c, r in Double((c * r) & 0xff) }, to: path,
                                options: GeoTIFFWriteOptions(blockShape: .tiles(width: 16, height: 16), compression: .deflate))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for cut in [bytes.count / 2, bytes.count - 10, 20] {
            let truncated = directory.file("cut-\(cut).tif")
            try Self.write(Array(bytes.prefix(cut)), to: truncated)
            #expect {
                try GeoTIFFRaster(path: truncated)
            } throws: { error in
                guard case RasterError.unreadableTIFF(let errorPath, let detail) = error else { return false }
                return errorPath == truncated && !detail.isEmpty
            }
        }
    }

    /// Tile data cut off behind an intact directory is a read error naming the tile, and the raster stays usable for other tiles.
    @Test
    func truncatedTileData() throws {
        let directory = try TemporaryDirectory()
        // A hand-made strip whose StripOffsets point 3 bytes before the end
        // of the file while its StripByteCounts claim 16 bytes.
        let tiff = HandMadeTIFF.image(width: 4, height: 4, bitsPerSample: 8, sampleFormat: 1)
        let path = directory.file("short-strip.tif")
        var bytes = tiff.bytes()
        let directoryOffset = Int(bytes[4]) | Int(bytes[5]) << 8
        let count = Int(bytes[directoryOffset]) | Int(bytes[directoryOffset + 1]) << 8
        for entry in 0..<count {
            let at = directoryOffset + 2 + entry * 12
            if bytes[at] == 0x11 && bytes[at + 1] == 0x01 {
                let offset = UInt32(bytes.count - 3)
                bytes.replaceSubrange((at + 8)..<(at + 12), with: withUnsafeBytes(of: offset.littleEndian) { Array($0) })
            }
        }
        try Self.write(bytes, to: path)
        let raster = try GeoTIFFRaster(path: path)
        #expect {
            try raster.sample(column: 0, row: 0)
        } throws: { error in
            guard case RasterError.readFailed(let errorPath, let block, let detail) = error else { return false }
            return errorPath == path && block == 0 && !detail.isEmpty
        }
    }

    /// Sample formats outside the ten types are refused, naming the format
    /// (complex and 12-bit data each with what to do instead).
    @Test(arguments: [(UInt16(1), UInt16(1)), (4, 1), (12, 1), (16, 3), (32, 5), (32, 6), (64, 6), (24, 2)])
    func unsupportedSampleFormat(_ bits: UInt16, _ format: UInt16) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("format.tif")
        try Self.write(HandMadeTIFF.image(width: 8, height: 2, bitsPerSample: bits, sampleFormat: format).bytes(), to: path)
        #expect {
            try GeoTIFFRaster(path: path)
        } throws: { error in
            guard case RasterError.unsupported(_, let detail) = error else { return false }
            if format >= 5 { return detail.contains("complex samples") && detail.contains("gdal_translate") }
            if bits == 12 { return detail.contains("12-bit samples") && detail.contains("gdal_translate -ot UInt16") }
            return detail.contains("\(bits) bits per sample")
        }
    }

    /// A GDAL_NODATA tag that is not a number is refused, quoting it.
    @Test
    func invalidNoData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nodata.tif")
        try Self.write(HandMadeTIFF.image(width: 2, height: 2, bitsPerSample: 8, sampleFormat: 1, extra: [(42113, .ascii("abc"))]).bytes(), to: path)
        #expect(throws: RasterError.invalidNoData(path: path, text: "abc")) { try GeoTIFFRaster(path: path) }
    }

    /// Without georeferencing a raster opens, reads by pixel, and says
    /// clearly that map coordinates cannot be identified.
    @Test
    func noGeoreferencing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("plain.tif")
        try GeoTIFFWriter.write(RasterImage(width: 3, height: 2, pixelType: .int8, values: [-1, -2, -3, 4, 5, 6]), to: path)
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.geoTransform == nil)
        #expect(raster.info.notGeoreferencedReason?.contains("no ModelPixelScale") == true)
        #expect(raster.info.crs == .unknown(reason: "the file has no GeoKeys"))
        #expect(try raster.sample(column: 2, row: 1)?.values == [6])
        for spatialReference in [nil, SpatialReference.wgs84] {
            #expect {
                try raster.identify(x: 1, y: 1, in: spatialReference)
            } throws: { error in
                guard case RasterError.notGeoreferenced(let errorPath, _) = error else { return false }
                return errorPath == path && "\(error)".contains("only pixel coordinates")
            }
        }
    }

    /// Ground control points only (tiepoints without a scale) are no georeferencing, said as such.
    @Test
    func groundControlPointsOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("gcps.tif")
        try Self.write(HandMadeTIFF.image(width: 2, height: 2, bitsPerSample: 8, sampleFormat: 1,
                                          extra: [(33922, .doubles([0, 0, 0, 10, 20, 0, 2, 2, 0, 30, 40, 0]))]).bytes(), to: path)
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.notGeoreferencedReason?.contains("ground control points") == true)
    }

    /// An unknown raster CRS (no CRS keys, geocentric, user-defined without
    /// parameters) still identifies in the raster's own coordinates and
    /// refuses other spatial references with a clear error.
    @Test(arguments: [GeoTIFFWriteOptions.CRS.none, .geocentric, .userDefinedWithoutParameters])
    func unknownRasterCRS(_ crs: GeoTIFFWriteOptions.CRS) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("unknown.tif")
        try GeoTIFFWriter.write(RasterImage(width: 2, height: 2, pixelType: .uint8, values: [1, 2, 3, 4]), to: path, options: GeoTIFFWriteOptions(
            georeferencing: .geoTransform(GeoTransform(originX: 0, originY: 2, cellWidth: 1, cellHeight: 1)!), crs: crs))
        let raster = try GeoTIFFRaster(path: path)
        guard case .unknown = raster.info.crs else {
            Issue.record("expected an unknown CRS, got \(raster.info.crs)")
            return
        }
        #expect(try raster.identify(x: 1.5, y: 0.5)?.values == [4])
        #expect(try raster.identify(x: 1.5, y: 0.5)?.extent.wkid == nil)
        #expect {
            try raster.identify(x: 1.5, y: 0.5, in: .wgs84)
        } throws: { error in
            guard case RasterError.unknownRasterCRS(let errorPath, _) = error else { return false }
            return errorPath == path
        }
    }

    /// An EPSG code PROJ does not know opens, identifies in its own
    /// coordinates, and names the code when a transformation is needed: as the
    /// raster's unknown coordinate system, not as the point's spatial reference.
    @Test
    func epsgCodeUnknownToPROJ() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("epsg.tif")
        try GeoTIFFWriter.write(RasterImage(width: 2, height: 2, pixelType: .uint8, values: [1, 2, 3, 4]), to: path, options: GeoTIFFWriteOptions(
            georeferencing: .geoTransform(GeoTransform(originX: 0, originY: 2, cellWidth: 1, cellHeight: 1)!), crs: .projected(epsg: 32799)))
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.crs == .epsg(32799))
        #expect(try raster.identify(x: 0.5, y: 1.5)?.values == [1])
        #expect {
            try raster.identify(x: 0.5, y: 1.5, in: .wgs84)
        } throws: { error in
            guard case RasterError.unknownRasterCRS(let errorPath, let reason) = error else { return false }
            return errorPath == path && reason.contains("EPSG:32799")
        }
    }

    /// YCbCr colour (JPEG-style subsampled data) is refused rather than misread.
    @Test
    func yCbCrRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ycbcr.tif")
        try Self.write(HandMadeTIFF.image(width: 2, height: 2, bitsPerSample: 8, sampleFormat: 1, samplesPerPixel: 3, photometric: 6).bytes(), to: path)
        #expect {
            try GeoTIFFRaster(path: path)
        } throws: { error in
            guard case RasterError.unsupported(_, let detail) = error else { return false }
            return detail.contains("YCbCr")
        }
    }

    /// Big-endian float32 with the floating-point predictor, built byte by
    /// byte here (TN3 predictor, stored Deflate): read back exactly. The
    /// writer refuses that combination because libtiff 4.5 writes it wrongly.
    @Test(arguments: [true, false])
    func floatingPointPredictorBothByteOrders(_ bigEndian: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fp.tif")
        let rows: [[Float]] = [[1.5, 2.25, -3.125, 100.5], [7, 8, -.infinity, Float.leastNormalMagnitude / 4]]
        let data = ReferenceEncoders.zlibStored(rows.flatMap(ReferenceEncoders.floatingPointPredicted))
        var tiff = HandMadeTIFF.image(width: 4, height: 2, bitsPerSample: 32, sampleFormat: 3, extra: [(317, .shorts([3]))])
        tiff.entries = tiff.entries.map { $0.tag == 259 ? (259, .shorts([8])) : $0 }
        tiff.imageData = data
        tiff.bigEndian = bigEndian
        try Self.write(tiff.bytes(), to: path)
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.predictor == .floatingPoint && raster.info.compression == .deflate)
        for (row, values) in rows.enumerated() {
            for (column, value) in values.enumerated() {
                #expect(try raster.sample(column: column, row: row)?.values == [Double(value)])
            }
        }
        #expect(throws: RasterError.self) {
            try GeoTIFFWriter.write(RasterImage(width: 1, height: 1, pixelType: .float32, values: [1]), to: directory.file("w.tif"),
                                    options: GeoTIFFWriteOptions(compression: .deflate, predictor: .floatingPoint, bigEndian: true))
        }
    }
}
