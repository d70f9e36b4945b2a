import Foundation
import EntityStreamProjection
import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Points in WGS84 or Web Mercator identify the cell their raster-CRS
/// coordinates name; the oracles for the coordinates are independent of
/// PROJ (Snyder's Transverse Mercator series and the spherical Web Mercator
/// formulas written in ``ProjectionOracles``).
@Suite(.bounded)
struct TransformationTests {
    /// UTM zone `zone` north on WGS84, from the Transverse Mercator series.
    static func utm(longitude: Double, latitude: Double, zone: Int) -> (x: Double, y: Double) {
        ProjectionOracles.transverseMercator(longitude: longitude, latitude: latitude, ellipsoid: .wgs84, latitudeOfOrigin: 0,
                                             centralMeridian: Double(6 * zone - 183), scale: 0.9996, falseEasting: 500_000, falseNorthing: 0)
    }

    /// Longitude and latitude of Web Mercator metres (the spherical inverse).
    static func unprojectWebMercator(x: Double, y: Double) -> (x: Double, y: Double) {
        let r = ProjectionOracles.Ellipsoid.wgs84.a
        return (x / r * 180 / .pi, (2 * atan(exp(y / r)) - .pi / 2) * 180 / .pi)
    }

    /// A 200×150 UTM zone 18N raster with 30 m cells whose cell (c, r) holds r·200 + c.
    static func utmRaster(in directory: TemporaryDirectory) throws -> GeoTIFFRaster {
        let path = directory.file("utm.tif")
        let image = RasterImage(width: 200, height: 150, pixelType: .uint32) { _, column, row in Double(row * 200 + column) }
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            blockShape: .tiles(width: 64, height: 64), compression: .deflate,
            georeferencing: .geoTransform(GeoTransform(originX: 580_000, originY: 4_430_000, cellWidth: 30, cellHeight: 30)!),
            crs: .projected(epsg: 32618)))
        return try GeoTIFFRaster(path: path)
    }

    /// A 100×100 Web Mercator raster with 1000 m cells around (−8.2e6, 4.97e6).
    static func webMercatorRaster(in directory: TemporaryDirectory) throws -> GeoTIFFRaster {
        let path = directory.file("webmercator.tif")
        let image = RasterImage(width: 100, height: 100, pixelType: .int32) { _, column, row in Double(row * 100 + column) }
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            georeferencing: .geoTransform(GeoTransform(originX: -8_250_000, originY: 5_000_000, cellWidth: 1000, cellHeight: 1000)!),
            crs: .projected(epsg: 3857)))
        return try GeoTIFFRaster(path: path)
    }

    /// WGS84 points on a UTM raster land in the cell the independent UTM
    /// series names (points within 5 cm of an edge skipped), and the cell's
    /// WGS84 extent contains the point.
    @Test
    func wgs84OnUTM() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.utmRaster(in: directory)
        var generator = SplitMix64(seed: 7)
        var checked = 0
        for _ in 0..<2000 {
            let longitude = -74.06 + Double(generator.next() % 100_000) / 100_000 * 0.07
            let latitude = 39.98 + Double(generator.next() % 100_000) / 100_000 * 0.05
            let utm = Self.utm(longitude: longitude, latitude: latitude, zone: 18)
            let fx = (utm.x - 580_000) / 30, fy = (4_430_000 - utm.y) / 30
            guard fx > 0, fy > 0, fx < 200, fy < 150 else {
                #expect(try raster.identify(x: longitude, y: latitude, in: .wgs84) == nil || min(abs(fx), abs(fy), abs(fx - 200), abs(fy - 150)) < 0.01)
                continue
            }
            guard abs(fx - fx.rounded()) > 0.002, abs(fy - fy.rounded()) > 0.002 else { continue }
            let cell = try #require(try raster.identify(x: longitude, y: latitude, in: .wgs84))
            #expect(cell.column == Int(fx) && cell.row == Int(fy))
            #expect(cell.values == [Double(Int(fy) * 200 + Int(fx))])
            #expect(cell.extent.wkid == 4326)
            #expect(cell.extent.contains(Point(x: longitude, y: latitude)))
            #expect(cell.extent.xmax - cell.extent.xmin < 0.001 && cell.extent.ymax - cell.extent.ymin < 0.001)
            let same = try #require(try raster.identify(x: utm.x, y: utm.y))
            #expect(same.column == cell.column && same.row == cell.row)
            checked += 1
        }
        #expect(checked > 1000)
    }

    /// Web Mercator: a raster in 3857 identified in WGS84 (through the
    /// inverse spherical formula), in 3857 and in 102100 gives the same cell.
    @Test
    func webMercatorAndItsAliases() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.webMercatorRaster(in: directory)
        for row in stride(from: 0, to: 100, by: 7) {
            for column in stride(from: 0, to: 100, by: 9) {
                let x = -8_250_000 + (Double(column) + 0.37) * 1000, y = 5_000_000 - (Double(row) + 0.61) * 1000
                let lonLat = Self.unprojectWebMercator(x: x, y: y)
                let inWGS84 = try #require(try raster.identify(x: lonLat.x, y: lonLat.y, in: .wgs84))
                let inOwn = try #require(try raster.identify(x: x, y: y))
                let in102100 = try #require(try raster.identify(x: x, y: y, in: SpatialReference(wkid: 102100)))
                #expect(inWGS84.column == column && inWGS84.row == row && inWGS84.values == [Double(row * 100 + column)])
                #expect(inOwn.column == column && inOwn.row == row)
                #expect(in102100 == inOwn)
                #expect(in102100.extent == Envelope(xmin: -8_250_000 + Double(column) * 1000, ymin: 5_000_000 - Double(row + 1) * 1000,
                                                    xmax: -8_250_000 + Double(column + 1) * 1000, ymax: 5_000_000 - Double(row) * 1000, wkid: 3857))
                let projected = ProjectionOracles.webMercator(longitude: inWGS84.extent.xmin, latitude: inWGS84.extent.ymin)
                #expect(abs(projected.x - in102100.extent.xmin) < 1e-6 && abs(projected.y - in102100.extent.ymin) < 1e-6)
            }
        }
    }

    /// A WGS84 raster identified from Web Mercator points (the Runtime's usual map SR).
    @Test
    func webMercatorPointsOnAGeographicRaster() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wgs84.tif")
        try GeoTIFFWriter.write(RasterImage(width: 360, height: 180, pixelType: .int32) { _, column, row in Double(row * 360 + column - 30000) },
                                to: path, options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(originX: -180, originY: 90, cellWidth: 1, cellHeight: 1)!),
                                                                       crs: .geographic(epsg: 4326)))
        let raster = try GeoTIFFRaster(path: path)
        for (longitude, latitude) in [(2.35, 48.85), (-73.98, 40.75), (151.2, -33.87), (-0.5, -0.5), (179.5, 84.9)] {
            let mercator = ProjectionOracles.webMercator(longitude: longitude, latitude: latitude)
            let cell = try #require(try raster.identify(x: mercator.x, y: mercator.y, in: .webMercator))
            let column = Int((longitude + 180).rounded(.down)), row = Int((90 - latitude).rounded(.down))
            #expect(cell.column == column && cell.row == row && cell.values == [Double(row * 360 + column - 30000)])
            #expect(try raster.identify(x: longitude, y: latitude, in: .wgs84)?.extent
                    == Envelope(xmin: Double(column - 180), ymin: Double(89 - row), xmax: Double(column - 179), ymax: Double(90 - row), wkid: 4326))
        }
    }

    /// A user-defined CRS (transverse Mercator keys written by libgeotiff
    /// from a PROJ string) is read back as that definition and transforms:
    /// with UTM 18N's parameters it answers the cells the independent UTM series names.
    @Test
    func userDefinedCRS() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tmerc.tif")
        try GeoTIFFWriter.write(RasterImage(width: 200, height: 150, pixelType: .uint16) { _, column, row in Double((row * 200 + column) % 65536) },
                                to: path, options: GeoTIFFWriteOptions(
                                    georeferencing: .geoTransform(GeoTransform(originX: 580_000, originY: 4_430_000, cellWidth: 30, cellHeight: 30)!),
                                    crs: .userDefined(proj: "+proj=tmerc +lat_0=0 +lon_0=-75 +k=0.9996 +x_0=500000 +y_0=0 +ellps=WGS84 +units=m")))
        let raster = try GeoTIFFRaster(path: path)
        guard case .userDefined(let proj) = raster.info.crs else {
            Issue.record("expected a user-defined CRS, got \(raster.info.crs)")
            return
        }
        #expect(proj.contains("+proj=tmerc") && proj.contains("+lon_0=-75"))
        var generator = SplitMix64(seed: 11)
        var checked = 0
        for _ in 0..<300 {
            let longitude = -74.055 + Double(generator.next() % 10_000) / 10_000 * 0.06
            let latitude = 39.99 + Double(generator.next() % 10_000) / 10_000 * 0.03
            let utm = Self.utm(longitude: longitude, latitude: latitude, zone: 18)
            let fx = (utm.x - 580_000) / 30, fy = (4_430_000 - utm.y) / 30
            guard fx > 0, fy > 0, fx < 200, fy < 150, abs(fx - fx.rounded()) > 0.002, abs(fy - fy.rounded()) > 0.002 else { continue }
            let found = try #require(try raster.identify(x: longitude, y: latitude, in: .wgs84))
            #expect(found.column == Int(fx) && found.row == Int(fy))
            #expect(found.extent.wkid == 4326)
            checked += 1
        }
        #expect(checked > 100)
    }

    /// A point PROJ cannot transform (latitude 95°) is an error naming the point, not a crash or a wrong cell.
    @Test
    func untransformablePoint() throws {
        let directory = try TemporaryDirectory()
        let inside = Self.unprojectWebMercator(x: -8_200_000, y: 4_950_000)
        for (raster, longitude, latitude) in [(try Self.utmRaster(in: directory), -74.0, 40.0), (try Self.webMercatorRaster(in: directory), inside.x, inside.y)] {
            #expect {
                try raster.identify(x: 10, y: 95, in: .wgs84)
            } throws: { error in
                guard case RasterError.cannotTransform(let x, let y, let from, _, let detail) = error else { return false }
                return x == 10 && y == 95 && from == "EPSG:4326" && !detail.isEmpty
            }
            // The raster and its transformer stay usable afterwards.
            #expect(try raster.identify(x: longitude, y: latitude, in: .wgs84) != nil)
        }
    }

    /// Many points at once (one PROJ batch each way, split across the cores when large, each part taking
    /// its own cells' envelopes) give exactly the answers of one point at a time, in the points' order:
    /// cells with their extents, points off the raster, a point PROJ cannot transform and a non-finite one,
    /// in WGS84, Web Mercator and the raster's own CRS (UTM 18N, by its code: no PROJ).
    @Test
    func batchesEqualPointByPoint() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.utmRaster(in: directory)
        var generator = SplitMix64(seed: 11)
        var xs: [Double] = [], ys: [Double] = []
        for _ in 0..<20_000 {
            xs.append(-74.06 + generator.nextDouble() * 0.1)
            ys.append(39.99 + generator.nextDouble() * 0.06)
        }
        xs += [10, .nan, -74.0]
        ys += [95, 40.0, 40.0]
        for reference in [SpatialReference.wgs84, .webMercator, SpatialReference(wkid: 32618)] {
            var px = xs, py = ys
            if reference != .wgs84 {
                for index in px.indices where px[index].isFinite && abs(py[index]) < 85 {
                    let projected = reference == .webMercator ? ProjectionOracles.webMercator(longitude: px[index], latitude: py[index])
                        : Self.utm(longitude: px[index], latitude: py[index], zone: 18)
                    (px[index], py[index]) = (projected.x, projected.y)
                }
            }
            let batch = try raster.identify(xs: px, ys: py, in: reference)
            #expect(batch.count == px.count)
            var cells = 0
            for index in px.indices {
                let single = Result { () throws(RasterError) in try raster.identify(x: px[index], y: py[index], in: reference) }
                switch (batch[index], single) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(reference) point \(index)")
                    if let a {
                        cells += 1
                        // In the raster's own CRS the extent is the cell itself (30 m cells from 580,000, 4,430,000).
                        if reference.code == 32618 {
                            #expect(a.extent == Envelope(xmin: 580_000 + 30 * Double(a.column), ymin: 4_430_000 - 30 * Double(a.row + 1),
                                                         xmax: 580_000 + 30 * Double(a.column + 1), ymax: 4_430_000 - 30 * Double(a.row), wkid: 32618))
                        }
                    }
                case (.failure(let a), .failure(let b)):
                    #expect("\(a)" == "\(b)", "\(reference) point \(index)")
                default:
                    Issue.record("\(reference) point \(index): \(batch[index]) but \(single)")
                }
            }
            #expect(cells > 5_000)
        }
        let native = try raster.identify(xs: [580_015, 1], ys: [4_429_985, 1])
        let first = try native[0].get(), second = try native[1].get()
        #expect(first?.column == 0 && second == nil)
    }

    /// A spatial reference PROJ does not know is an error naming it.
    @Test
    func unknownSpatialReference() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.utmRaster(in: directory)
        #expect {
            try raster.identify(x: 1, y: 2, in: SpatialReference(wkid: 999_999))
        } throws: { error in
            guard case RasterError.unknownSpatialReference(let definition, _) = error else { return false }
            return definition.contains("999999")
        }
        // An Esri-only WKID resolves through PROJ's ESRI authority (World Mercator, 54004).
        #expect(try raster.identify(x: 0, y: 0, in: SpatialReference(wkid: 54004)) == nil)
    }

    /// No grids are missing for the common pairs on WGS84-based rasters.
    @Test
    func commonPairsNeedNoGrids() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.utmRaster(in: directory)
        #expect(try raster.missingGrids(for: .wgs84) == [])
        #expect(try raster.missingGrids(for: .webMercator) == [])
        #expect(try raster.missingGrids(for: SpatialReference(wkid: 32618)) == [])
    }
}
