import EntityStreamRaster
import EntityStreamTestSupport
import Testing

/// Tiles and strips are decoded on demand into an LRU cache bounded by
/// bytes; the counts are the raster's own statistics.
@Suite(.bounded)
struct BlockCacheTests {
    /// An 8×8-tile uint16 raster (64×64 tiles of 8 KiB each), cell value = column + 1000·row.
    static func tiled(in directory: TemporaryDirectory, cacheBytes: Int, planar: PlanarConfiguration = .contiguous, bands: Int = 1) throws -> GeoTIFFRaster {
        let path = directory.file("tiled.tif")
        let image = RasterImage(width: 512, height: 512, bandCount: bands, pixelType: .uint16) { band, column, row in Double((column + 100 * row + band) % 65536) }
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            blockShape: .tiles(width: 64, height: 64), compression: .deflate, planarConfiguration: planar,
            georeferencing: .geoTransform(GeoTransform(originX: 0, originY: 512, cellWidth: 1, cellHeight: 1)!), crs: .projected(epsg: 32618)))
        return try GeoTIFFRaster(path: path, options: RasterOpenOptions(cacheBytes: cacheBytes))
    }

    /// The first identify decodes exactly the one tile under the point; the next one in that tile decodes nothing.
    @Test
    func firstIdentifyDecodesOneBlock() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.tiled(in: directory, cacheBytes: 64 << 20)
        #expect(raster.cacheStatistics.decodedBlocks == 0)
        #expect(try raster.identify(x: 300.5, y: 200.5)?.values == [Double((300 + 100 * 311) % 65536)])
        #expect(raster.cacheStatistics.decodedBlocks == 1)
        #expect(raster.cacheStatistics.cachedBytes == 64 * 64 * 2)
        #expect(try raster.identify(x: 310.5, y: 210.5) != nil)
        #expect(raster.cacheStatistics.decodedBlocks == 1)
    }

    /// A planar-separate raster decodes one tile per band for its first cell.
    @Test
    func planarSeparateDecodesOneBlockPerBand() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.tiled(in: directory, cacheBytes: 64 << 20, planar: .separate, bands: 3)
        let cell = try #require(try raster.identify(x: 5.5, y: 500.5))
        #expect(cell.values == [Double(5 + 1100), Double(5 + 1100 + 1), Double(5 + 1100 + 2)])
        #expect(raster.cacheStatistics.decodedBlocks == 3)
    }

    /// The cache never holds more than its byte bound while every tile is
    /// visited, and every value stays right through evictions.
    @Test
    func boundHonoured() throws {
        let directory = try TemporaryDirectory()
        let bound = 3 * 8192
        let raster = try Self.tiled(in: directory, cacheBytes: bound)
        #expect(raster.cacheStatistics.capacityBlocks == 3)
        for row in stride(from: 3, to: 512, by: 29) {
            for column in stride(from: 7, to: 512, by: 31) {
                #expect(try raster.sample(column: column, row: row)?.values == [Double((column + 100 * row) % 65536)])
                #expect(raster.cacheStatistics.cachedBytes <= bound)
            }
        }
        #expect(raster.cacheStatistics.cachedBlocks == 3)
        #expect(raster.cacheStatistics.decodedBlocks > 64)
    }

    /// Least recently used goes first: after A, B, C, A, D the evicted tile is B (FIFO would evict A).
    @Test
    func evictsLeastRecentlyUsed() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.tiled(in: directory, cacheBytes: 3 * 8192)
        let a = (1, 1), b = (70, 1), c = (140, 1), d = (210, 1)
        func visit(_ cell: (Int, Int)) throws -> Int {
            let before = raster.cacheStatistics.decodedBlocks
            _ = try raster.sample(column: cell.0, row: cell.1)
            return raster.cacheStatistics.decodedBlocks - before
        }
        #expect(try [visit(a), visit(b), visit(c), visit(a), visit(d)] == [1, 1, 1, 0, 1])
        #expect(try visit(a) == 0)
        #expect(try visit(b) == 1)
    }

    /// A bound smaller than one block still works, one block at a time.
    @Test
    func boundBelowOneBlock() throws {
        let directory = try TemporaryDirectory()
        let raster = try Self.tiled(in: directory, cacheBytes: 0)
        #expect(raster.cacheStatistics.capacityBlocks == 1)
        #expect(try raster.sample(column: 1, row: 1)?.values == [101])
        #expect(try raster.sample(column: 500, row: 500)?.values == [Double((500 + 50000) % 65536)])
        #expect(raster.cacheStatistics.cachedBlocks == 1)
    }

    /// A big tiled raster (1024×1024 with 256×256 tiles, 16 tiles) answers its
    /// first identify after decoding one tile, not the image.
    @Test
    func bigRasterFirstIdentify() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("big.tif")
        let image = RasterImage(width: 1024, height: 1024, pixelType: .uint8) { _, column, row in Double((column ^ row) & 0xff) }
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            blockShape: .tiles(width: 256, height: 256), compression: .lzw, predictor: .horizontal,
            georeferencing: .geoTransform(GeoTransform(originX: 0, originY: 0, cellWidth: 10, cellHeight: 10)!), crs: .projected(epsg: 3857)))
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.blockCount == 16)
        #expect(try raster.identify(x: 5005, y: -7005)?.values == [Double((500 ^ 700) & 0xff)])
        #expect(raster.cacheStatistics.decodedBlocks == 1)
    }

    /// A single uncompressed strip (a 1000×1000 image in one strip) is read
    /// in chunks of rows, as libtiff presents it: the first sample decodes a few kilobytes.
    @Test
    func singleUncompressedStripIsReadInChunks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("one-strip.tif")
        try GeoTIFFWriter.write(RasterImage(width: 1000, height: 1000, pixelType: .uint8) { _, column, row in Double((column + row) & 0xff) },
                                to: path, options: GeoTIFFWriteOptions(blockShape: .strips(rowsPerStrip: 1000)))
        let raster = try GeoTIFFRaster(path: path)
        #expect(raster.info.blockCount > 1)
        #expect(try raster.sample(column: 999, row: 999)?.values == [Double((999 + 999) & 0xff)])
        #expect(raster.cacheStatistics.decodedBlocks == 1 && raster.cacheStatistics.cachedBytes <= 16_384)
    }

    /// A (compressed) block larger than the configured maximum is refused at open, naming the sizes.
    @Test
    func blockLargerThanTheMaximum() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("strip.tif")
        try GeoTIFFWriter.write(RasterImage(width: 100, height: 100, pixelType: .float64) { _, _, _ in 1 }, to: path,
                                options: GeoTIFFWriteOptions(blockShape: .strips(rowsPerStrip: 100), compression: .deflate))
        #expect(throws: RasterError.blockTooLarge(path: path, bytes: 80_000, limit: 50_000)) {
            try GeoTIFFRaster(path: path, options: RasterOpenOptions(maximumBlockBytes: 50_000))
        }
    }
}
