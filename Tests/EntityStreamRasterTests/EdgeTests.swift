import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Cell ownership at edges and corners, GDAL's rule: floor of the inverse
/// geotransform, so a cell is [x0, x0+dx) × (y0−dy, y0] north-up; a point
/// on the raster's right or bottom edge has no cell.
@Suite(.bounded)
struct EdgeTests {
    /// A 4×3 raster whose cell (c, r) holds r·4 + c, with `gt`.
    static func raster(_ gt: [Double], in directory: TemporaryDirectory) throws -> GeoTIFFRaster {
        let path = directory.file("edges.tif")
        try GeoTIFFWriter.write(RasterImage(width: 4, height: 3, pixelType: .int16) { _, column, row in Double(row * 4 + column) },
                                to: path, options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(gt)!), crs: .projected(epsg: 32618)))
        return try GeoTIFFRaster(path: path)
    }

    static func cell(_ raster: GeoTIFFRaster, _ x: Double, _ y: Double) throws -> [Int]? {
        try raster.identify(x: x, y: y).map { [$0.column, $0.row] }
    }

    /// North-up: the top-left corner and left/top edges are inside; right and
    /// bottom edges, and every other corner, are outside.
    @Test
    func northUp() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.raster([100, 10, 0, 500, 0, -10], in: directory)
        #expect(try Self.cell(raster, 100, 500) == [0, 0])       // top-left corner
        #expect(try Self.cell(raster, 140, 500) == nil)          // top-right corner
        #expect(try Self.cell(raster, 100, 470) == nil)          // bottom-left corner
        #expect(try Self.cell(raster, 140, 470) == nil)          // bottom-right corner
        #expect(try Self.cell(raster, 110, 495) == [1, 0])       // left edge of column 1
        #expect(try Self.cell(raster, 105, 490) == [0, 1])       // top edge of row 1
        #expect(try Self.cell(raster, 110, 490) == [1, 1])       // top-left corner of cell (1, 1)
        #expect(try Self.cell(raster, 140, 485) == nil)          // the raster's right edge
        #expect(try Self.cell(raster, 125, 470) == nil)          // the raster's bottom edge
        #expect(try Self.cell(raster, 139.99999, 470.00001) == [3, 2])
        #expect(try Self.cell(raster, 99.99999, 495) == nil)
        #expect(try Self.cell(raster, 105, 500.00001) == nil)
        let inside = try #require(try raster.identify(x: 110, y: 490))
        #expect(inside.values == [5])
        #expect(inside.extent.xmin == 110 && inside.extent.xmax == 120 && inside.extent.ymin == 480 && inside.extent.ymax == 490)
        #expect(inside.extent.wkid == 32618)
    }

    /// South-up (positive y scale): row 0 starts at the smallest y, so the
    /// raster's pixel-top edge is y0 and its pixel-bottom edge y0 + 3·dy.
    @Test
    func southUp() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.raster([100, 10, 0, 500, 0, 10], in: directory)
        #expect(try Self.cell(raster, 100, 500) == [0, 0])
        #expect(try Self.cell(raster, 100, 510) == [0, 1])
        #expect(try Self.cell(raster, 100, 530) == nil)
        #expect(try Self.cell(raster, 140, 500) == nil)
        #expect(try Self.cell(raster, 105, 499.99999) == nil)
        #expect(try Self.cell(raster, 139.99999, 529.99999) == [3, 2])
        #expect(try raster.identify(x: 139.99999, y: 529.99999)?.values == [11])
    }

    /// Every cell's four edges, for a raster whose cell size is not a power
    /// of two: each point x0 + k·dx on a left/top edge lands in cell k.
    @Test
    func everyEdgeOfEveryCell() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.raster([440720, 60, 0, 3751320, 0, -60], in: directory)
        for row in 0...3 {
            for column in 0...4 {
                let expected: [Int]? = column < 4 && row < 3 ? [column, row] : nil
                #expect(try Self.cell(raster, 440720 + Double(column) * 60, 3751320 - Double(row) * 60) == expected)
            }
        }
    }

    /// Outside in every direction and non-finite input: nil for outside, an error for NaN/∞.
    @Test
    func outsideAndNonFinite() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.raster([100, 10, 0, 500, 0, -10], in: directory)
        for (x, y) in [(50.0, 480.0), (200, 480), (120, 600), (120, 400), (-1e300, 1e300)] {
            #expect(try raster.identify(x: x, y: y) == nil)
        }
        #expect(throws: RasterError.invalidPoint(x: .infinity, y: 480)) { try raster.identify(x: .infinity, y: 480) }
        #expect(throws: RasterError.self) { try raster.identify(x: 120, y: .nan) }
    }
}
