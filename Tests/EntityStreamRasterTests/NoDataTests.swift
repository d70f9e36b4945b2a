import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// GDAL_NODATA: parsing the tag and GDAL's NoData-mask comparison (the
/// value converted to the band's type), on files the test wrote.
@Suite(.bounded)
struct NoDataTests {
    /// The tag's text as GDAL writes it parses, `nan`/`inf` included; garbage does not.
    @Test
    func parsesGDALText() {
        #expect(NoDataValue(text: "-9999")?.value == -9999)
        #expect(NoDataValue(text: " -3.39999999999999996e+38 ")?.value == -3.39999999999999996e+38)
        #expect(NoDataValue(text: "nan")?.value.isNaN == true)
        #expect(NoDataValue(text: "NaN")?.value.isNaN == true)
        #expect(NoDataValue(text: "-inf")?.value == -.infinity)
        #expect(NoDataValue(text: "0\0")?.value == 0)
        #expect(NoDataValue(text: "abc") == nil)
        #expect(NoDataValue(text: "") == nil)
        #expect(NoDataValue(text: "1,5") == nil)
    }

    /// GDAL's conversions: integers truncate toward zero and out-of-range
    /// values mark nothing; float32 compares in float with ARE_REAL_EQUAL;
    /// float64 with ARE_REAL_EQUAL; NaN marks NaN only.
    @Test
    func comparesAsGDAL() {
        #expect(NoDataValue(0.5).matcher(for: .uint8).matches(0))
        #expect(!NoDataValue(0.5).matcher(for: .uint8).matches(1))
        #expect(NoDataValue(-1.7).matcher(for: .int16).matches(-1))
        #expect(!NoDataValue(256).matcher(for: .uint8).matches(0))
        #expect(!NoDataValue(-1).matcher(for: .uint16).matches(65535))
        #expect(!NoDataValue(.nan).matcher(for: .int32).matches(0))
        #expect(NoDataValue(-3.4e38).matcher(for: .float32).matches(Double(Float(-3.4e38))))
        #expect(!NoDataValue(1e39).matcher(for: .float32).matches(Double(Float.infinity)))
        #expect(NoDataValue(.infinity).matcher(for: .float32).matches(.infinity))
        #expect(NoDataValue(1).matcher(for: .float64).matches(1 + 1e-9))
        #expect(!NoDataValue(1).matcher(for: .float64).matches(1 + 1e-6))
        #expect(NoDataValue(0).matcher(for: .float64).matches(0) && !NoDataValue(0).matcher(for: .float64).matches(1e-300))
        #expect(NoDataValue(.nan).matcher(for: .float32).matches(.nan))
        #expect(!NoDataValue(.nan).matcher(for: .float32).matches(0))
        #expect(NoDataValue(4_294_967_295).matcher(for: .uint32).matches(4_294_967_295))
    }

    /// In every pixel type, cells holding the NoData value answer null bands
    /// and `NoData: true`; the others answer their values.
    @Test(arguments: PixelType.allCases)
    func noDataCellsInEveryType(_ type: PixelType) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nodata.tif")
        let noData: Double = type.integerRange.map { $0.upperBound } ?? -9999
        let image = RasterImage(width: 6, height: 5, bandCount: 2, pixelType: type) { band, column, row in
            (column + row) % 3 == 0 ? noData : Double(band * 10 + column)
        }
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(blockShape: .tiles(width: 16, height: 16), compression: .deflate,
                                                                              noData: NoDataValue(noData)))
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.noData?.value == noData)
        for row in 0..<5 {
            for column in 0..<6 {
                let sample = try #require(try raster.sample(column: column, row: row))
                if (column + row) % 3 == 0 {
                    #expect(sample.isNoData && sample.values == [nil, nil])
                    #expect(sample.attributes["NoData"] == .bool(true))
                    #expect(sample.attributes["Band_0"] == .null && sample.attributes["Band_1"] == .null)
                    #expect(sample.attributes["Pixel.Type"] == .string(type.rawValue))
                } else {
                    #expect(!sample.isNoData && sample.values == [Double(column), Double(10 + column)])
                    #expect(sample.attributes["NoData"] == nil)
                }
            }
        }
    }

    /// NaN NoData in float32 and float64: NaN cells are NoData, every other value is not.
    @Test(arguments: [PixelType.float32, .float64])
    func nanNoData(_ type: PixelType) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nan.tif")
        let values: [Double] = [.nan, 0, -0.0, .infinity, 1.5, .nan]
        try GeoTIFFWriter.write(RasterImage(width: 3, height: 2, pixelType: type, values: values), to: path,
                                options: GeoTIFFWriteOptions(noData: NoDataValue(.nan)))
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.noData?.text == "nan")
        let read = try (0..<6).map { try #require(try raster.sample(column: $0 % 3, row: $0 / 3)).values[0] }
        #expect(read[0] == nil && read[5] == nil)
        #expect(read[1] == 0 && read[2] == 0 && read[3] == .infinity && read[4] == 1.5)
    }

    /// A partly-NoData cell of a multi-band raster: only the matching bands are null and the cell is not NoData.
    @Test
    func noDataIsPerBand() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("rgb.tif")
        try GeoTIFFWriter.write(RasterImage(width: 1, height: 1, bandCount: 3, pixelType: .uint8, values: [0, 12, 0]), to: path,
                                options: GeoTIFFWriteOptions(noData: NoDataValue(0)))
        let sample = try #require(try GeoTIFFRaster(path: path).sample(column: 0, row: 0))
        #expect(sample.values == [nil, 12, nil])
        #expect(!sample.isNoData)
        #expect(sample.attributes["NoData"] == nil)
    }

    /// Unwritten (sparse) blocks read as NoData, or as 0 without NoData, as GDAL reads them.
    @Test
    func sparseBlocksReadAsNoData() throws {
        let directory = try TemporaryDirectory()
        let image = RasterImage(width: 32, height: 32, pixelType: .int16) { _, column, row in Double(column + row + 1) }
        for noData in [NoDataValue(-5), nil] {
            let path = directory.file("sparse.tif")
            try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(blockShape: .tiles(width: 16, height: 16), compression: .lzw,
                                                                                  noData: noData, unwrittenBlocks: [1, 2]))
            let raster = try GeoTIFFRaster(path: path)
            #expect(try raster.sample(column: 3, row: 4)?.values == [8])
            #expect(try raster.sample(column: 20, row: 4)?.values == [noData == nil ? 0 : nil])
            #expect(try raster.sample(column: 4, row: 20)?.values == [noData == nil ? 0 : nil])
            #expect(try raster.sample(column: 20, row: 20)?.values == [41])
        }
    }
}
