import Foundation
import EntityStreamTestSupport
import EntityStreamRaster
import Testing
import EntityStreamModel
import EntityStreamProjection

/// The real rasters in `../shared/data/rasters/` (skipped when absent).
/// Oracles: published checksums (GDAL autotest, rasterio's tests), values
/// GDAL 3.6.2's gdallocationinfo printed (command in each comment, run once
/// on Debian 12), and cross-decoding of the same pixels in three layouts.
@Suite(.bounded)
struct SharedRasterTests {
    static let absent = Comment(rawValue: SharedData.absentComment)
    static func has(_ name: String) -> Bool { SharedData.has("rasters/" + name) }
    static func open(_ name: String, _ options: RasterOpenOptions = RasterOpenOptions()) throws -> GeoTIFFRaster {
        try GeoTIFFRaster(path: SharedData.path("rasters/" + name), options: options)
    }

    /// GDAL's classic byte.tif: checksum 4672 (GDAL autotest), EPSG:26711,
    /// 60 m cells from (440720, 3751320), and gdallocationinfo's values.
    @Test(.enabled(if: has("rasterio__byte.tif"), absent))
    func byteTif() throws {
        let raster = try Self.open("rasterio__byte.tif")
        #expect(raster.info.crs == .epsg(26711))
        #expect(raster.info.geoTransform?.coefficients == [440720, 60, 0, 3751320, 0, -60])
        #expect(try gdalChecksums(raster) == [4672])
        // gdallocationinfo -valonly rasterio__byte.tif 10 10  → 115
        #expect(try raster.sample(column: 10, row: 10)?.values == [115])
        // gdallocationinfo -valonly -wgs84 rasterio__byte.tif -117.64 33.90  → 140 (NAD27 → WGS84 without grids, as here)
        #expect(try raster.identify(x: -117.64, y: 33.90, in: .wgs84)?.values == [140])
    }

    /// RGB.byte.tif (strips), its LZW tiled copy and its Deflate band-separate
    /// copy: rasterio's published checksums [25420, 29131, 37860] for all
    /// three, and the same cells at 5,000 random map points.
    @Test(.enabled(if: has("rasterio__RGB.byte.tif") && has("rasterio__rgb_lzw.tif") && has("rasterio__rgb_deflate.tif"),
                                            absent))
    func rgbDecodesAlikeInThreeLayouts() throws {
        let rasters = try ["rasterio__RGB.byte.tif", "rasterio__rgb_lzw.tif", "rasterio__rgb_deflate.tif"].map { try Self.open($0) }
        #expect(rasters[1].info.blockShape == .tiles(width: 256, height: 256) && rasters[1].info.compression == .lzw)
        #expect(rasters[2].info.planarConfiguration == .separate && rasters[2].info.compression == .deflate)
        for raster in rasters {
            #expect(try gdalChecksums(raster) == [25420, 29131, 37860])
        }
        let extent = try #require(rasters[0].info.extent)
        var generator = SplitMix64(seed: 3)
        for _ in 0..<5000 {
            let x = extent.xmin + Double(generator.next() % 1_000_000) / 1_000_000 * (extent.xmax - extent.xmin)
            let y = extent.ymin + Double(generator.next() % 1_000_000) / 1_000_000 * (extent.ymax - extent.ymin)
            let answers = try rasters.map { try $0.identify(x: x, y: y) }
            #expect(answers[0] != nil && answers[0] == answers[1] && answers[1] == answers[2])
        }
    }

    /// Every sampled cell of the all-NoData raster (4 bands uint16, LZW with
    /// predictor, band-separate tiles) answers null bands and NoData: true.
    @Test(.enabled(if: has("rasterio__all-nodata.tif"), absent))
    func allNoData() throws {
        let raster = try Self.open("rasterio__all-nodata.tif")
        #expect(raster.info.bandCount == 4 && raster.info.pixelType == .uint16 && raster.info.predictor == .horizontal)
        for row in stride(from: 0, to: raster.info.height, by: 7) {
            for column in stride(from: 0, to: raster.info.width, by: 3) {
                let sample = try #require(try raster.sample(column: column, row: row))
                #expect(sample.isNoData && sample.attributes["NoData"] == .bool(true) && sample.attributes["Band_3"] == .null)
            }
        }
    }

    /// float_nan.tif: NaN NoData; the cells gdallocationinfo prints
    /// (`gdallocationinfo -valonly rasterio__float_nan.tif C R` for the six
    /// cells: 1.4099999666214, 1.23000001907349, nan, 0.319999992847443,
    /// -0.230000004172325, -1.87999999523163).
    @Test(.enabled(if: has("rasterio__float_nan.tif"), absent))
    func nanNoData() throws {
        let raster = try Self.open("rasterio__float_nan.tif")
        #expect(raster.info.noData?.value.isNaN == true && raster.info.pixelType == .float32)
        let expected: [Double?] = [1.4099999666214, 1.23000001907349, nil, 0.319999992847443, -0.230000004172325, -1.87999999523163]
        for (index, value) in expected.enumerated() {
            let read = try #require(try raster.sample(column: index % 3, row: index / 3)).values[0]
            if let value, let read {
                #expect(abs(read - value) < 5e-15)   // gdallocationinfo prints %.15g
            } else {
                #expect(read == nil && value == nil)
            }
        }
    }

    /// float_raster_with_nodata.tif: nodata -3.4e38 in float32 marks the
    /// cells gdallocationinfo prints as -3.39999995214436e+38; a user-defined
    /// LAEA CRS from its GeoKeys.
    @Test(.enabled(if: has("rasterio__float_raster_with_nodata.tif"), absent))
    func floatNoData() throws {
        let raster = try Self.open("rasterio__float_raster_with_nodata.tif")
        guard case .userDefined(let proj) = raster.info.crs else {
            Issue.record("expected a user-defined CRS, got \(raster.info.crs)")
            return
        }
        #expect(proj.contains("+proj=laea"))
        // gdallocationinfo -valonly rasterio__float_raster_with_nodata.tif 4 4 → -3.39999995214436e+38 (NoData)
        #expect(try raster.sample(column: 4, row: 4)?.isNoData == true)
        // … 5 3 → 0 and 12 8 → 0
        #expect(try raster.sample(column: 5, row: 3)?.values == [0])
        #expect(try raster.sample(column: 12, row: 8)?.values == [0])
        // … 12 12 → nothing (off the 13×12 file)
        #expect(try raster.sample(column: 12, row: 12) == nil)
    }

    /// inverted_lat.tif is south-up (gt5 > 0) and all NoData (−9999); the
    /// cells are those gdallocationinfo locates:
    /// `gdallocationinfo -wgs84 riotiler__inverted_lat.tif 10.25 45.25` → (380P,270L), Value -9999;
    /// `… -120.1 -33.3` → (119P,113L).
    @Test(.enabled(if: has("riotiler__inverted_lat.tif"), absent))
    func invertedLatitude() throws {
        let raster = try Self.open("riotiler__inverted_lat.tif")
        #expect(raster.info.geoTransform?.coefficients == [-180, 0.5, 0, -90, 0, 0.5])
        let north = try #require(try raster.identify(x: 10.25, y: 45.25, in: .wgs84))
        #expect(north.column == 380 && north.row == 270 && north.isNoData)
        #expect(north.extent == Envelope(xmin: 10, ymin: 45, xmax: 10.5, ymax: 45.5, wkid: 4326))
        let south = try #require(try raster.identify(x: -120.1, y: -33.3))
        #expect(south.column == 119 && south.row == 113)
    }

    /// The 2658×2667 tiled COG: its first identify decodes one 256×256 tile,
    /// not the image; values as gdallocationinfo prints them:
    /// `gdallocationinfo -valonly riotiler__cog.tif 1500 1500` → 6896,
    /// `gdallocationinfo -geoloc riotiler__cog.tif 506150 8152650` → (1329P,1333L) 3744,
    /// `gdallocationinfo -wgs84 riotiler__cog.tif -56.9 73.4` → (1299P,1408L) 3744.
    @Test(.enabled(if: has("riotiler__cog.tif"), absent))
    func cloudOptimizedGeoTIFF() throws {
        let raster = try Self.open("riotiler__cog.tif")
        #expect(raster.info.width == 2658 && raster.info.height == 2667 && raster.info.blockShape == .tiles(width: 256, height: 256))
        #expect(raster.info.rasterType == .pixelIsPoint && raster.info.crs == .epsg(32621))
        let first = try #require(try raster.identify(x: 506150, y: 8152650))
        #expect(raster.cacheStatistics.decodedBlocks == 1)
        #expect(first.column == 1329 && first.row == 1333 && first.values == [3744] && first.pixelType == .uint16)
        let wgs84 = try #require(try raster.identify(x: -56.9, y: 73.4, in: .wgs84))
        #expect(wgs84.column == 1299 && wgs84.row == 1408 && wgs84.values == [3744])
        #expect(wgs84.extent.contains(Point(x: -56.9, y: 73.4)))
        #expect(try raster.sample(column: 1500, row: 1500)?.values == [6896])
    }

    /// A COG truncated in its tile data opens (its directory is first) and
    /// answers a read error naming the tile for the missing tiles.
    @Test(.enabled(if: has("riotiler__cog.tif"), absent))
    func truncatedCOG() throws {
        let directory = try TemporaryDirectory()
        let bytes = try [UInt8](Foundation.Data(contentsOf: URL(fileURLWithPath: SharedData.path("rasters/riotiler__cog.tif"))))
        let path = directory.file("cut.tif")
        try Foundation.Data(bytes.prefix(bytes.count * 3 / 4)).write(to: URL(fileURLWithPath: path))
        let raster = try GeoTIFFRaster(path: path)
        var failures = 0
        for row in stride(from: 128, to: 2667, by: 256) {
            for column in stride(from: 128, to: 2658, by: 256) {
                do {
                    _ = try raster.sample(column: column, row: row)
                } catch RasterError.readFailed(let errorPath, _, let detail) {
                    #expect(errorPath == path && !detail.isEmpty)
                    failures += 1
                }
            }
        }
        #expect(failures > 0)
    }

    /// A user-defined transverse Mercator DEM identified from WGS84, as
    /// `gdallocationinfo -wgs84 stars__olinda_dem_utm25s.tif -34.87 -8.0` → (56P,61L) 16.
    @Test(.enabled(if: has("stars__olinda_dem_utm25s.tif"), absent))
    func userDefinedDEM() throws {
        let raster = try Self.open("stars__olinda_dem_utm25s.tif")
        let cell = try #require(try raster.identify(x: -34.87, y: -8.0, in: .wgs84))
        #expect(cell.column == 56 && cell.row == 61 && cell.values == [16])
        // gdallocationinfo -valonly stars__olinda_dem_utm25s.tif 10 10 → 65
        #expect(try raster.sample(column: 10, row: 10)?.values == [65])
    }

    /// Every shared raster opens, and identify at random cell centres (in the
    /// raster's CRS) returns that cell with an extent containing the point.
    @Test(.enabled(if: has("rasterio__shade.tif"), absent))
    func everyRasterIdentifiesItsCells() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SharedData.path("rasters")).filter { $0.hasSuffix(".tif") }.sorted()
        #expect(names.count >= 15)
        var generator = SplitMix64(seed: 5)
        for name in names {
            let raster = try Self.open(name)
            let transform = try #require(raster.info.geoTransform, "\(name)")
            for _ in 0..<300 {
                let column = Int(generator.next() % UInt64(raster.info.width)), row = Int(generator.next() % UInt64(raster.info.height))
                let point = transform.point(column: Double(column) + 0.5, row: Double(row) + 0.5)
                let cell = try #require(try raster.identify(x: point.x, y: point.y), "\(name)")
                #expect(cell.column == column && cell.row == row, "\(name)")
                #expect(cell.extent.contains(Point(x: point.x, y: point.y)), "\(name)")
                #expect(cell.values.count == raster.info.bandCount)
            }
        }
    }
}
