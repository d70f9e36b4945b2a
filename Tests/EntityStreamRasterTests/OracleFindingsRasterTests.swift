import EntityStreamTestSupport
import Foundation
import EntityStreamRaster
import Testing
import EntityStreamModel
import EntityStreamProjection

/// Raster answers an independent check found wrong or refused, each against
/// an oracle the test computes: GDAL's inverse-geotransform rule written out
/// here, values the test put in the file, and a projection's formula.
@Suite("Identify on new data: exact edges, non-finite cells, 64-bit integers, JPEG YCbCr, ESRI PE strings", .bounded)
struct OracleFindingsRasterTests {
    /// GDAL's `GDALInvGeoTransform` for a north-up transform and
    /// `gdallocationinfo`'s floor, written here from their definition.
    static func gdalCell(_ gt: [Double], x: Double, y: Double) -> (column: Int, row: Int) {
        let inverse = [-gt[0] / gt[1], 1.0 / gt[1], 0, -gt[3] / gt[5], 0, 1.0 / gt[5]]
        let pixel = inverse[0] + inverse[1] * x + inverse[2] * y
        let line = inverse[3] + inverse[4] * x + inverse[5] * y
        return (Int(pixel.rounded(.down)), Int(line.rounded(.down)))
    }

    /// Every exact cell edge a user would type (decimal text of origin + k·size) on
    /// rasters whose pixel size is not exact in binary: the cell (or none) is
    /// GDAL's, and the answered cell's extent holds the point on its included
    /// edges (`xmin ≤ x < xmax`, `ymin < y ≤ ymax`).
    @Test(arguments: [(1, -1000, 5000, 200, 150), (5, -675, 4360, 120, 200), (10, -1000, 5000, 80, 60), (2, -700, 4425, 100, 100),
                      (25, -1000, 5000, 40, 40), (1000, -5000, 5000, 10, 10)])
    func exactEdgesFollowGDAL(hundredths: Int, originX: Int, originY: Int, width: Int, height: Int) throws {
        func decimal(_ value: Int) -> Double { Double(String(format: "%@%d.%02d", value < 0 ? "-" : "", abs(value) / 100, abs(value) % 100))! }
        let size = decimal(hundredths)
        let gt = [decimal(originX), size, 0, decimal(originY), 0, -size]
        let directory = try TemporaryDirectory()
        let path = directory.file("edges.tif")
        try GeoTIFFWriter.write(RasterImage(width: width, height: height, pixelType: .uint8) { _, column, row in Double((row * 7 + column) % 251) },
                                to: path, options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(gt)!), crs: .geographic(epsg: 4326)))
        let raster = try GeoTIFFRaster(path: path)
        var checked = 0
        for k in 0...width {
            for j in stride(from: 0, through: height, by: max(1, height / 7)) {
                let x = decimal(originX + k * hundredths), y = decimal(originY - j * hundredths)
                let expected = Self.gdalCell(gt, x: x, y: y)
                let inside = expected.column >= 0 && expected.row >= 0 && expected.column < width && expected.row < height
                let cell = try raster.identify(x: x, y: y)
                #expect((cell.map { [$0.column, $0.row] }) == (inside ? [expected.column, expected.row] : nil), "x \(x) y \(y)")
                if let cell {
                    #expect(cell.extent.xmin <= x && x < cell.extent.xmax, "x \(x) in \(cell.extent)")
                    #expect(cell.extent.ymin < y && y <= cell.extent.ymax, "y \(y) in \(cell.extent)")
                    #expect(cell.values == [Double((cell.row * 7 + cell.column) % 251)])
                }
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    /// NaN and the infinities that are not the NoData value say what they
    /// are; the NoData value alone is null (and NoData when every band is).
    @Test(arguments: [PixelType.float32, .float64])
    func nonFiniteCells(_ type: PixelType) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nonfinite.tif")
        let values: [Double] = [.nan, .infinity, -.infinity, 1.5, -9999, 2]
        try GeoTIFFWriter.write(RasterImage(width: 3, height: 1, bandCount: 2, pixelType: type, values: values),
                                to: path, options: GeoTIFFWriteOptions(noData: NoDataValue(-9999)))
        let raster = try GeoTIFFRaster(path: path)
        let expected: [[JSONValue]] = [[.string("NaN"), .double(1.5)], [.string("Infinity"), .null], [.string("-Infinity"), .double(2)]]
        for column in 0..<3 {
            let attributes = try #require(try raster.sample(column: column, row: 0)).attributes
            #expect([attributes["Band_0"], attributes["Band_1"]] == expected[column], "column \(column)")
            #expect(attributes["NoData"] == nil)
        }
    }

    /// 64-bit integers (a TIFF built byte by byte here) are read, exactly
    /// beyond 2⁵³; a uint64 above Int64.max is the nearest double.
    @Test func sixtyFourBitIntegers() throws {
        let directory = try TemporaryDirectory()
        let signed: [Int64] = [.min, .max, 9_007_199_254_740_993, -9_007_199_254_740_993, 0, -1]
        let unsigned: [UInt64] = [.max, 9_007_199_254_740_993, 0, 1 << 63, 5, 12_345_678_901_234_567_890]
        for (format, words) in [(UInt16(2), signed.map { UInt64(bitPattern: $0) }), (1, unsigned)] {
            let path = directory.file("int64-\(format).tif")
            var tiff = HandMadeTIFF.image(width: 3, height: 2, bitsPerSample: 64, sampleFormat: format)
            tiff.imageData = words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
            try Data(tiff.bytes()).write(to: URL(fileURLWithPath: path))
            let raster = try GeoTIFFRaster(path: path)
            #expect(raster.info.pixelType == (format == 2 ? .int64 : .uint64))
            for (index, word) in words.enumerated() {
                let attributes = try #require(try raster.sample(column: index % 3, row: index / 3)).attributes
                let want: JSONValue = format == 2 ? .int(Int64(bitPattern: word)) : (Int64(exactly: word).map { .int($0) } ?? .double(Double(word)))
                #expect(attributes["Band_0"] == want, "sample \(index)")
            }
        }
    }

    /// GDAL's usual JPEG layout (`COMPRESS=JPEG PHOTOMETRIC=YCBCR TILED=YES`)
    /// is read through libtiff's RGB conversion: flat 16×16 tiles of known
    /// colours come back within JPEG's rounding.
    @Test func jpegYCbCr() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("jpeg.tif")
        let colours: [[Double]] = [[200, 30, 60], [10, 220, 100], [128, 128, 128], [250, 250, 5]]
        let image = RasterImage(width: 32, height: 32, bandCount: 3, pixelType: .uint8) { band, column, row in
            colours[(row / 16) * 2 + column / 16][band]
        }
        var options = GeoTIFFWriteOptions(blockShape: .tiles(width: 16, height: 16), compression: .jpeg,
                                          georeferencing: .geoTransform(GeoTransform(originX: 0, originY: 32, cellWidth: 1, cellHeight: 1)!),
                                          crs: .projected(epsg: 32618))
        options.jpegYCbCr = true
        try GeoTIFFWriter.write(image, to: path, options: options)
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.bandCount == 3 && raster.info.pixelType == .uint8)
        for (column, row) in [(0, 0), (5, 9), (20, 3), (31, 15), (2, 20), (17, 17), (31, 31)] {
            let values = try #require(try raster.sample(column: column, row: row)).values
            let want = colours[(row / 16) * 2 + column / 16]
            for band in 0..<3 { #expect(abs((values[band] ?? -100) - want[band]) <= 3, "(\(column), \(row)) band \(band): \(values)") }
        }
    }

    /// A custom coordinate system as ArcGIS writes it (user-defined keys, an
    /// `ESRI PE String` citation) is read through PROJ: a WGS84 point lands
    /// in the cell the equidistant cylindrical formula puts it in
    /// (x = a·λ, y = a·φ, radians, a = 6378137).
    @Test func esriPEStringCRS() throws {
        let wkt = #"PROJCS["World_Equidistant_Cylindrical",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Equidistant_Cylindrical"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",0.0],UNIT["Meter",1.0]]"#
        let directory = try TemporaryDirectory()
        let path = directory.file("esri.tif")
        let (originX, originY, size) = (-1_000_000.0, 6_000_000.0, 10_000.0)
        try GeoTIFFWriter.write(RasterImage(width: 200, height: 300, pixelType: .int32) { _, column, row in Double(row * 1000 + column) },
                                to: path, options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(originX: originX, originY: originY,
                                                                                                                    cellWidth: size, cellHeight: size)!),
                                                                       crs: .esriPEString(wkt: wkt)))
        let raster = try GeoTIFFRaster(path: path)
        guard case .esriWKT = raster.info.crs else {
            Issue.record("CRS read as \(raster.info.crs)")
            return
        }
        for (lon, lat) in [(2.3522, 48.8566), (-4.43, 36.72), (8.0, 30.0)] {
            let x = 6_378_137 * lon * .pi / 180, y = 6_378_137 * lat * .pi / 180
            let column = (x - originX) / size, row = (originY - y) / size
            try #require(column - column.rounded(.down) > 0.01 && column - column.rounded(.down) < 0.99)
            try #require(row - row.rounded(.down) > 0.01 && row - row.rounded(.down) < 0.99)
            let cell = try #require(try raster.identify(x: lon, y: lat, in: .wgs84))
            let expected: [Int] = [Int(column.rounded(.down)), Int(row.rounded(.down))]
            #expect([cell.column, cell.row] == expected, "(\(lon), \(lat))")
        }
    }
}
