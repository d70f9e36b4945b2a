import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// GeoTIFF georeferencing as GDAL reads it: tiepoint+scale, the
/// transformation matrix, their precedence, PixelIsPoint, south-up.
@Suite(.bounded)
struct GeoreferencingTests {
    /// Writes a 4×3 uint8 raster with `options`, each cell's value its index (row·4 + column).
    static func raster(_ options: GeoTIFFWriteOptions, in directory: TemporaryDirectory, open: RasterOpenOptions = RasterOpenOptions()) throws -> GeoTIFFRaster {
        let path = directory.file("georeferenced.tif")
        try GeoTIFFWriter.write(RasterImage(width: 4, height: 3, pixelType: .uint8) { _, column, row in Double(row * 4 + column) },
                                to: path, options: options)
        return try GeoTIFFRaster(path: path, options: open)
    }

    /// Tiepoint + pixel scale give gt = [X − I·Sx, Sx, 0, Y + J·Sy, 0, −Sy] (OGC GeoTIFF, GDAL).
    @Test
    func tiepointAndScale() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.raster(GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: [1, 2, 0, 440780, 3751200, 0], pixelScale: [60, 60, 0], transformation: nil),
                                                         crs: .projected(epsg: 26711)), in: directory)
        #expect(raster.info.geoTransform?.coefficients == [440720, 60, 0, 3751320, 0, -60])
        #expect(raster.info.crs == .epsg(26711))
        #expect(raster.info.rasterType == .pixelIsArea)
    }

    /// PixelIsPoint shifts half a cell up-left, GDAL's default: the reference's
    /// byte_point.tif vector, tiepoint (440720, 3751320) with 60 m cells, reads
    /// as (440690, 60, 0, 3751350, 0, −60); with GTIFF_POINT_GEO_IGNORE as the tiepoint itself.
    @Test
    func pixelIsPointShiftsHalfACell() throws {
        let directory = try TemporaryDirectory()
        let options = GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: [0, 0, 0, 440720, 3751320, 0], pixelScale: [60, 60, 0], transformation: nil),
                                          rasterType: .pixelIsPoint, crs: .projected(epsg: 26711))
        let shifted = try Self.raster(options, in: directory)
        #expect(shifted.info.rasterType == .pixelIsPoint)
        #expect(shifted.info.geoTransform?.coefficients == [440690, 60, 0, 3751350, 0, -60])
        // The tiepoint is the centre of cell (0, 0); 29.9 m right of it is still that cell, 30 m is the next.
        #expect(try shifted.identify(x: 440720, y: 3751320)?.column == 0)
        #expect(try shifted.identify(x: 440749.9, y: 3751320)?.column == 0)
        #expect(try shifted.identify(x: 440750, y: 3751320)?.column == 1)
        let ignored = try Self.raster(options, in: directory, open: RasterOpenOptions(pointGeoIgnore: true))
        #expect(ignored.info.geoTransform?.coefficients == [440720, 60, 0, 3751320, 0, -60])
    }

    /// A transformation matrix M gives gt = [M3, M0, M1, M7, M4, M5]; a
    /// positive M5 is a south-up raster whose row 0 is at the smallest y.
    @Test
    func southUpMatrix() throws {
        let directory = try TemporaryDirectory()
        let matrix: [Double] = [10, 0, 0, 1000, 0, 5, 0, 2000, 0, 0, 0, 0, 0, 0, 0, 1]
        let raster = try Self.raster(GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: nil, pixelScale: nil, transformation: matrix)), in: directory)
        #expect(raster.info.geoTransform?.coefficients == [1000, 10, 0, 2000, 0, 5])
        let top = try #require(try raster.identify(x: 1001, y: 2001))
        #expect(top.column == 0 && top.row == 0 && top.values == [0])
        let bottom = try #require(try raster.identify(x: 1039, y: 2014))
        #expect(bottom.column == 3 && bottom.row == 2 && bottom.values == [11])
        #expect(bottom.extent == Envelope(xmin: 1030, ymin: 2010, xmax: 1040, ymax: 2015, wkid: nil))
        #expect(try raster.identify(x: 1001, y: 1999) == nil)
    }

    /// A rotated, sheared matrix: a point at a cell's fractional pixel
    /// position identifies that cell, and the extent is the envelope of its four corners.
    @Test
    func rotatedMatrix() throws {
        let directory = try TemporaryDirectory()
        let gt: [Double] = [1000, 8, 3, 5000, 2, -9]
        let matrix: [Double] = [gt[1], gt[2], 0, gt[0], gt[4], gt[5], 0, gt[3], 0, 0, 0, 0, 0, 0, 0, 1]
        let raster = try Self.raster(GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: nil, pixelScale: nil, transformation: matrix)), in: directory)
        for row in 0..<3 {
            for column in 0..<4 {
                let (fx, fy) = (Double(column) + 0.3, Double(row) + 0.7)
                let x = gt[0] + fx * gt[1] + fy * gt[2], y = gt[3] + fx * gt[4] + fy * gt[5]
                let cell = try #require(try raster.identify(x: x, y: y))
                #expect(cell.column == column && cell.row == row && cell.values == [Double(row * 4 + column)])
                let xs = [0.0, 1, 1, 0].indices.map { i in gt[0] + (Double(column) + [0.0, 1, 1, 0][i]) * gt[1] + (Double(row) + [0.0, 0, 1, 1][i]) * gt[2] }
                let ys = [0.0, 1, 1, 0].indices.map { i in gt[3] + (Double(column) + [0.0, 1, 1, 0][i]) * gt[4] + (Double(row) + [0.0, 0, 1, 1][i]) * gt[5] }
                #expect(cell.extent == Envelope(xmin: xs.min()!, ymin: ys.min()!, xmax: xs.max()!, ymax: ys.max()!, wkid: nil))
            }
        }
    }

    /// Tiepoint+scale win over a transformation matrix in the same file (GDAL's precedence).
    @Test
    func scaleAndTiepointWinOverMatrix() throws {
        let directory = try TemporaryDirectory()
        let matrix: [Double] = [1, 0, 0, 7, 0, -1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1]
        let raster = try Self.raster(GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: [0, 0, 0, 100, 200, 0], pixelScale: [2, 3, 0], transformation: matrix)), in: directory)
        #expect(raster.info.geoTransform?.coefficients == [100, 2, 0, 200, 0, -3])
    }

    /// A negative ScaleY is read north-up as GDAL does by default; with
    /// GTIFF_HONOUR_NEGATIVE_SCALEY it is south-up.
    @Test
    func negativeScaleY() throws {
        let directory = try TemporaryDirectory()
        let options = GeoTIFFWriteOptions(georeferencing: .tags(tiepoints: [0, 0, 0, 100, 200, 0], pixelScale: [2, -3, 0], transformation: nil))
        #expect(try Self.raster(options, in: directory).info.geoTransform?.coefficients == [100, 2, 0, 200, 0, -3])
        let honoured = try Self.raster(options, in: directory, open: RasterOpenOptions(honourNegativeScaleY: true))
        #expect(honoured.info.geoTransform?.coefficients == [100, 2, 0, 200, 0, 3])
    }

    /// A geotransform given to the writer comes back as written, through
    /// tiepoint+scale (north-up) or the matrix (south-up, rotated), with PixelIsArea or PixelIsPoint.
    @Test(arguments: [[500.0, 30, 0, 900, 0, -30], [500, 30, 0, 900, 0, 30], [500, 30, 4, 900, -2, -30]],
          [RasterType.pixelIsArea, .pixelIsPoint])
    func writerGeoTransformRoundTrips(_ coefficients: [Double], _ rasterType: RasterType) throws {
        let directory = try TemporaryDirectory()
        let transform = try #require(GeoTransform(coefficients))
        let raster = try Self.raster(GeoTIFFWriteOptions(georeferencing: .geoTransform(transform), rasterType: rasterType,
                                                         crs: .projected(epsg: 32618)), in: directory)
        #expect(raster.info.geoTransform == transform)
        #expect(raster.info.rasterType == rasterType)
    }

    /// GDAL's rules on the tag values alone: GCPs without a scale, a matrix of
    /// the wrong length and a singular geotransform are no georeferencing, each said.
    @Test
    func tagRulesWithoutAFile() {
        func reason(_ tags: GeoreferencingTags) -> String? {
            if case .notGeoreferenced(let reason) = tags.resolve() { return reason }
            return nil
        }
        #expect(reason(GeoreferencingTags(tiepoints: [0, 0, 0, 1, 2, 0, 5, 5, 0, 3, 4, 0]))?.contains("ground control points") == true)
        #expect(reason(GeoreferencingTags(transformation: [1, 0, 0, 0]))?.contains("16 values") == true)
        #expect(reason(GeoreferencingTags(pixelScale: [1, 1, 0]))?.contains("no ModelTiepoint") == true)
        #expect(reason(GeoreferencingTags())?.contains("no ModelPixelScale") == true)
        #expect(reason(GeoreferencingTags(transformation: [1, 2, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))?.contains("non-invertible") == true)
        // A zero scale falls through to the matrix, as in GDAL.
        let matrix: [Double] = [1, 0, 0, 7, 0, -1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 1]
        #expect(GeoreferencingTags(pixelScale: [0, 1, 0], tiepoints: [0, 0, 0, 1, 1, 0], transformation: matrix).resolve()
                == .georeferenced(GeoTransform([7, 1, 0, 9, 0, -1])!))
    }

    /// The inverse geotransform is exact on cell edges: x0 + k·dx maps to column k.
    @Test
    func inverseIsExactOnEdges() throws {
        let transform = try #require(GeoTransform(originX: 440720, originY: 3751320, cellWidth: 60, cellHeight: 60))
        for k in 0...20 {
            let pixel = transform.pixel(x: 440720 + Double(k) * 60, y: 3751320 - Double(k) * 60)
            #expect(pixel.column == Double(k) && pixel.row == Double(k))
        }
    }
}
