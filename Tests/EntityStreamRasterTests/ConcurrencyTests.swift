import EntityStreamRaster
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamProjection

/// The concurrency contract: one open raster per actor; distinct rasters
/// (each with its own libtiff handle, cache and PROJ contexts) run in parallel.
@Suite(.bounded)
struct ConcurrencyTests {
    /// Owns one open raster; identify runs on the actor.
    actor RasterOwner {
        let raster: GeoTIFFRaster

        init(path: String) throws {
            raster = try GeoTIFFRaster(path: path, options: RasterOpenOptions(cacheBytes: 2 * 8192))
        }

        /// The cell columns/rows/values under `points` (WGS84).
        func identify(_ points: [(Double, Double)]) throws -> [[Double?]] {
            try points.map { point in
                guard let cell = try raster.identify(x: point.0, y: point.1, in: .wgs84) else { return [] }
                return [Double(cell.column), Double(cell.row)] + cell.values
            }
        }
    }

    /// Four actors, each with its own open copy of one raster, identify the same
    /// WGS84 points at the same time and agree with a single sequential run.
    @Test
    func independentRastersRunInParallel() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("shared.tif")
        try GeoTIFFWriter.write(RasterImage(width: 300, height: 300, pixelType: .float32) { _, column, row in Double(Float(column) * 0.5 - Float(row)) },
                                to: path, options: GeoTIFFWriteOptions(
                                    blockShape: .tiles(width: 64, height: 64), compression: .lzw, predictor: .floatingPoint,
                                    georeferencing: .geoTransform(GeoTransform(originX: 580_000, originY: 4_430_000, cellWidth: 20, cellHeight: 20)!),
                                    crs: .projected(epsg: 32618)))
        var generator = SplitMix64(seed: 9)
        let points = (0..<3000).map { _ in
            (-74.06 + Double(generator.next() % 10_000) / 10_000 * 0.08, 39.95 + Double(generator.next() % 10_000) / 10_000 * 0.06)
        }
        let expected = try await RasterOwner(path: path).identify(points)
        #expect(expected.filter { !$0.isEmpty }.count > 1000)
        let owners = try (0..<4).map { _ in try RasterOwner(path: path) }
        let results = try await withThrowingTaskGroup(of: [[Double?]].self) { group in
            for owner in owners { group.addTask { try await owner.identify(points) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4)
        for result in results { #expect(result == expected) }
    }
}
