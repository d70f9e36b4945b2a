import CLibTIFF
import EntityStreamProjection
import EntityStreamModel

/// An open GeoTIFF that identifies the cell under a point.
///
/// Opening reads the first image directory (the full-resolution image of a
/// COG) and its GeoTIFF tags, but no image data: tiles or strips are decoded
/// on demand with libtiff (`TIFFReadEncodedTile`/`TIFFReadEncodedStrip`,
/// every compression and predictor libtiff decodes) into an LRU cache
/// bounded by ``RasterOpenOptions/cacheBytes``. Unwritten (sparse) blocks read
/// as NoData, or 0 without NoData, as GDAL reads them.
///
/// Identify: the point is transformed from its spatial reference into the
/// raster's CRS with PROJ (none needed when it is already there); the cell is
/// (floor(column), floor(row)) of the inverse geotransform. The cell's extent
/// in the point's reference is the envelope of its four corners transformed
/// back (four PROJ calls), kept in a small cache of recent cells
/// (``CellExtentCache``) so a cell identified again costs none. A point on a
/// cell's left or top edge belongs to that cell; a point on the raster's
/// right or bottom edge, or outside it, has no cell: the answer is nil, not
/// an error. Errors (thrown as ``RasterError``) are: a point that cannot be
/// transformed, a raster without georeferencing or with an unknown CRS when
/// that is needed, an unknown spatial reference, and a tile that cannot be
/// read.
///
/// Concurrency contract: an open raster — its libtiff handle, its block
/// cache and its PROJ transformers (each with its own `PJ_CONTEXT`) — is
/// used from ONE thread or actor at a time. It is deliberately not
/// `Sendable`: keep each open raster inside one actor (or open one per
/// actor). Opening returns a fresh, unshared object that may be handed to
/// that actor. Distinct rasters are independent and may be used in parallel.
public final class GeoTIFFRaster {
    /// What opening found.
    public let info: RasterInfo
    private let tiff: TIFFHandle
    private let layout: BlockLayout
    private let cache: BlockCache
    private let pixelType: PixelType
    private let noData: NoDataMatcher?
    private let options: RasterOpenOptions
    private let geoTransform: GeoTransform?
    /// Operations from a spatial reference (by code) into the raster's CRS.
    private var transformers: [Int: CoordinateOperation] = [:]
    private var transformerOrder: [Int] = []
    private var lastTransformerCode = 0
    private var lastTransformer: CoordinateOperation?
    /// The raster's CRS as a spatial reference, once asked for.
    private var rasterReference: Result<SpatialReference, RasterError>?
    /// Extents of recently identified cells in other references than the raster's.
    private let extentCache = CellExtentCache()
    /// The cells' edges in the raster's CRS (nil unless axis-aligned).
    private let cellEdges: CellEdges?

    /// Opens the GeoTIFF at `path`. Throws ``RasterError``: ``RasterError/cannotOpen(path:reason:)``,
    /// ``RasterError/notTIFF(path:detail:)``, ``RasterError/unreadableTIFF(path:detail:)`` (truncated
    /// or corrupt), ``RasterError/unsupported(path:detail:)``, ``RasterError/blockTooLarge(path:bytes:limit:)``,
    /// ``RasterError/invalidNoData(path:text:)``. A file without georeferencing or with an unknown CRS
    /// opens (``RasterInfo/geoTransform`` nil / ``RasterInfo/crs`` unknown) and says so when identify needs it.
    public init(path: String, options: RasterOpenOptions = RasterOpenOptions()) throws(RasterError) {
        let tiff = try TIFFHandle(path: path, mode: "rm", maximumAllocation: options.maximumBlockBytes)
        let directory = try TIFFImageDirectory(tiff, maximumBlockBytes: options.maximumBlockBytes)
        let geoTransform: GeoTransform?
        let reason: String?
        switch directory.georeferencing.resolve(honourNegativeScaleY: options.honourNegativeScaleY, pointGeoIgnore: options.pointGeoIgnore) {
        case .georeferenced(let transform):
            geoTransform = transform
            reason = nil
        case .notGeoreferenced(let why):
            geoTransform = nil
            reason = why
        }
        self.info = RasterInfo(path: path, width: directory.layout.width, height: directory.layout.height,
                               bandCount: directory.layout.bandCount, pixelType: directory.pixelType,
                               blockShape: directory.blockShape, planarConfiguration: directory.planar,
                               compression: directory.compression, predictor: directory.predictor,
                               blockByteCount: directory.layout.blockByteCount, blockCount: directory.layout.blockCount,
                               geoTransform: geoTransform, notGeoreferencedReason: reason,
                               rasterType: directory.georeferencing.rasterType, crs: directory.crs, noData: directory.noData)
        self.tiff = tiff
        self.layout = directory.layout
        self.pixelType = directory.pixelType
        self.noData = directory.noData?.matcher(for: directory.pixelType)
        self.options = options
        self.geoTransform = geoTransform
        self.cellEdges = geoTransform.flatMap { CellEdges($0, width: directory.layout.width, height: directory.layout.height) }
        self.cache = BlockCache(blockCount: directory.layout.blockCount, blockByteCount: directory.layout.blockByteCount,
                                byteLimit: options.cacheBytes)
    }

    // MARK: Identify

    /// The cell under (`x`, `y`) given in `spatialReference` (nil: the
    /// raster's own CRS), with its extent in that spatial reference; nil when
    /// the point is outside the raster or on its right or bottom edge.
    public func identify(x: Double, y: Double, in spatialReference: SpatialReference? = nil) throws(RasterError) -> RasterCell? {
        let located = try locate(x: x, y: y, in: spatialReference)
        guard let located else { return nil }
        let sample = try readSample(column: located.column, row: located.row)
        let extent = try cellExtent(column: located.column, row: located.row, transformer: located.transformer,
                                    wkid: spatialReference?.code ?? info.crs.epsgCode)
        return RasterCell(sample: sample, extent: extent)
    }

    /// The cells under many points given in `spatialReference` (nil: the
    /// raster's own CRS), in order: each point's cell with its extent (nil
    /// when the point has none), or the error for that point — the answers
    /// ``identify(x:y:in:)`` gives point by point. The points go into the
    /// raster's CRS in one PROJ batch, and the corners of the cells whose
    /// extent is not cached back into the points' reference in another, which
    /// is where identify from another reference spends its time. Both are
    /// split across the cores when large (``CoordinateOperations/forEachPart(of:pointsEach:from:to:_:)``,
    /// one PROJ operation per thread), each part also taking the envelopes of
    /// its cells' corners; reading the cells stays on the calling thread.
    /// - Throws: what concerns every point: no georeferencing, an unknown
    ///   raster CRS or spatial reference, no transformation between them.
    public func identify(xs: [Double], ys: [Double], in spatialReference: SpatialReference? = nil) throws(RasterError) -> [Result<RasterCell?, RasterError>] {
        guard let geoTransform else {
            throw RasterError.notGeoreferenced(path: info.path, reason: info.notGeoreferencedReason ?? "no geotransform")
        }
        let count = min(xs.count, ys.count)
        let wkid = spatialReference?.code ?? info.crs.epsgCode
        var results = [Result<RasterCell?, RasterError>](repeating: .success(nil), count: count)
        guard let transformer = try transformer(for: spatialReference) else {
            // In the raster's CRS: the extent is the envelope of the cell's corners as they are.
            for index in 0..<count {
                switch batchSample(x: xs[index], y: ys[index], rasterX: xs[index], rasterY: ys[index], geoTransform, transformer: nil) {
                case .success(let sample?):
                    results[index] = Result { () throws(RasterError) in
                        RasterCell(sample: sample, extent: try cellExtent(column: sample.column, row: sample.row, transformer: nil, wkid: wkid))
                    }.map { $0 }
                case .success(nil): continue
                case .failure(let error): results[index] = .failure(error)
                }
            }
            return results
        }
        let source = spatialReference ?? .wgs84, target = try targetReference()
        var rasterX = Array(xs.prefix(count)), rasterY = Array(ys.prefix(count))
        do { try CoordinateOperations.transform(x: &rasterX, y: &rasterY, from: source, to: target) } catch { throw RasterError(error) }
        // The cells whose extent is not cached, and their corners (x, y pairs, four a cell).
        var pending: [(index: Int, sample: RasterSample, cell: Int)] = []
        pending.reserveCapacity(count)
        let corners = UnsafeMutablePointer<Double>.allocate(capacity: 8 * count)
        defer { corners.deallocate() }
        for index in 0..<count {
            let sample: RasterSample
            switch batchSample(x: xs[index], y: ys[index], rasterX: rasterX[index], rasterY: rasterY[index], geoTransform, transformer: transformer) {
            case .success(let found?): sample = found
            case .success(nil): continue
            case .failure(let error):
                results[index] = .failure(error)
                continue
            }
            let number = cellNumber(column: sample.column, row: sample.row)
            if let held = extentCache.lookup(cell: number, code: source.code) {
                results[index] = .success(RasterCell(sample: sample, extent: Envelope(xmin: held.xmin, ymin: held.ymin, xmax: held.xmax,
                                                                                     ymax: held.ymax, wkid: wkid)))
                continue
            }
            let cell = self.corners(column: sample.column, row: sample.row, of: geoTransform)
            let at = corners + 8 * pending.count
            (at[0], at[1], at[2], at[3]) = (cell.0.x, cell.0.y, cell.1.x, cell.1.y)
            (at[4], at[5], at[6], at[7]) = (cell.2.x, cell.2.y, cell.3.x, cell.3.y)
            pending.append((index, sample, number))
        }
        // Each part: its cells' corners back into the points' reference, then
        // each cell's envelope (xmin, ymin, xmax, ymax) over its first four numbers.
        let shared = CornerBuffer(pointer: corners)
        do {
            try CoordinateOperations.forEachPart(of: pending.count, pointsEach: 4, from: source, to: target) { operation, cells in
                let first = shared.pointer + 8 * cells.lowerBound
                operation.transform(x: first, xStride: 16, y: first + 1, yStride: 16, count: 4 * cells.count, .inverse)
                for cell in cells {
                    let at = shared.pointer + 8 * cell
                    let xmin = min(min(at[0], at[2]), min(at[4], at[6])), xmax = max(max(at[0], at[2]), max(at[4], at[6]))
                    let ymin = min(min(at[1], at[3]), min(at[5], at[7])), ymax = max(max(at[1], at[3]), max(at[5], at[7]))
                    (at[0], at[1], at[2], at[3]) = (xmin, ymin, xmax, ymax)
                }
            }
        } catch {
            throw RasterError(error)
        }
        for (position, (index, sample, cell)) in pending.enumerated() {
            let at = corners + 8 * position
            let (xmin, ymin, xmax, ymax) = (at[0], at[1], at[2], at[3])
            guard xmin.isFinite && xmax.isFinite && ymin.isFinite && ymax.isFinite else {
                results[index] = .failure(.cannotTransform(x: xs[index], y: ys[index], from: target.label, to: source.label,
                                                           detail: "a corner of the cell is outside the projection's domain"))
                continue
            }
            extentCache.insert(cell: cell, code: source.code, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
            results[index] = .success(RasterCell(sample: sample, extent: Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: wkid)))
        }
        return results
    }

    /// One point of a batch, (`x`, `y`) as given and (`rasterX`, `rasterY`)
    /// in the raster's CRS: its cell's values, nil when it has no cell, or
    /// its error (not finite, not transformable, a block that cannot be read).
    @inline(__always)
    private func batchSample(x: Double, y: Double, rasterX: Double, rasterY: Double, _ geoTransform: GeoTransform,
                             transformer: CoordinateOperation?) -> Result<RasterSample?, RasterError> {
        guard x.isFinite && y.isFinite else { return .failure(.invalidPoint(x: x, y: y)) }
        // PROJ's reason for this point, asked again one point at a time.
        guard rasterX.isFinite && rasterY.isFinite else { return .failure(pointFailure(x: x, y: y, transformer)) }
        let pixel = geoTransform.pixel(x: rasterX, y: rasterY)
        guard pixel.column >= 0, pixel.row >= 0, pixel.column < Double(layout.width), pixel.row < Double(layout.height) else { return .success(nil) }
        return Result { () throws(RasterError) in try readSample(column: Int(pixel.column), row: Int(pixel.row)) }.map { $0 }
    }

    /// The four corners of cell (`column`, `row`) in the raster's CRS: top-left,
    /// top-right, bottom-right, bottom-left. Axis-aligned: the edges exactly
    /// as identify assigns points, so the extent agrees with the answer.
    @inline(__always)
    private func corners(column: Int, row: Int, of geoTransform: GeoTransform)
        -> ((x: Double, y: Double), (x: Double, y: Double), (x: Double, y: Double), (x: Double, y: Double)) {
        if let bounds = cellEdges?.bounds(column: column, row: row) {
            return ((bounds.xmin, bounds.ymax), (bounds.xmax, bounds.ymax), (bounds.xmax, bounds.ymin), (bounds.xmin, bounds.ymin))
        }
        let left = Double(column), top = Double(row)
        return (geoTransform.point(column: left, row: top), geoTransform.point(column: left + 1, row: top),
                geoTransform.point(column: left + 1, row: top + 1), geoTransform.point(column: left, row: top + 1))
    }

    /// The error of one point PROJ could not bring into the raster's CRS.
    private func pointFailure(x: Double, y: Double, _ transformer: CoordinateOperation?) -> RasterError {
        do {
            _ = try transformer?.forward(x: x, y: y)
        } catch {
            return RasterError(error)
        }
        return .cannotTransform(x: x, y: y, from: transformer?.source.label ?? "?", to: transformer?.target.label ?? "?", detail: "outside the projection's domain")
    }

    /// The values of the cell under (`x`, `y`) without its extent (the
    /// enrichment path: one PROJ call fewer than four); nil when outside.
    public func sample(x: Double, y: Double, in spatialReference: SpatialReference? = nil) throws(RasterError) -> RasterSample? {
        guard let located = try locate(x: x, y: y, in: spatialReference) else { return nil }
        return try readSample(column: located.column, row: located.row)
    }

    /// The column and row of the cell under (`x`, `y`), without reading it
    /// (nil when outside): lets a caller that caches per cell skip the read.
    public func cell(x: Double, y: Double, in spatialReference: SpatialReference? = nil) throws(RasterError) -> (column: Int, row: Int)? {
        guard let located = try locate(x: x, y: y, in: spatialReference) else { return nil }
        return (located.column, located.row)
    }

    /// The values of cell (`column`, `row`) in pixel coordinates (works
    /// without georeferencing); nil outside the raster.
    public func sample(column: Int, row: Int) throws(RasterError) -> RasterSample? {
        guard column >= 0, row >= 0, column < layout.width, row < layout.height else { return nil }
        return try readSample(column: column, row: row)
    }

    /// The extent of cell (`column`, `row`) in `spatialReference` (nil: the
    /// raster's CRS): the envelope of its four transformed corners.
    public func extent(column: Int, row: Int, in spatialReference: SpatialReference? = nil) throws(RasterError) -> Envelope {
        let transformer = try transformer(for: spatialReference)
        return try cellExtent(column: column, row: row, transformer: transformer, wkid: spatialReference?.code ?? info.crs.epsgCode)
    }

    /// The grids PROJ's most accurate transformation from `spatialReference`
    /// to this raster's CRS would use but are not installed (empty when the
    /// best transformation is available, or when none is needed). Throws as
    /// identify would for that spatial reference.
    public func missingGrids(for spatialReference: SpatialReference) throws(RasterError) -> [String] {
        try transformer(for: spatialReference)?.missingGrids() ?? []
    }

    /// Cache counters, for tests and benchmarks.
    public var cacheStatistics: RasterCacheStatistics {
        RasterCacheStatistics(decodedBlocks: cache.decodedBlocks, cachedBlocks: cache.cachedBlocks, cachedBytes: cache.cachedBytes,
                              capacityBlocks: cache.capacity, blockByteCount: cache.blockByteCount, hits: cache.hits,
                              extentHits: extentCache.hits)
    }

    // MARK: Steps

    private struct Located {
        var column: Int
        var row: Int
        var transformer: CoordinateOperation?
    }

    /// The point's cell in pixel coordinates, or nil when it has none.
    @inline(__always) private func locate(x: Double, y: Double, in spatialReference: SpatialReference?) throws(RasterError) -> Located? {
        guard x.isFinite && y.isFinite else { throw RasterError.invalidPoint(x: x, y: y) }
        guard let geoTransform else {
            throw RasterError.notGeoreferenced(path: info.path, reason: info.notGeoreferencedReason ?? "no geotransform")
        }
        let transformer = try transformer(for: spatialReference)
        var point = (x: x, y: y)
        if let transformer {
            do { point = try transformer.forward(x: x, y: y) } catch { throw RasterError(error) }
        }
        let pixel = geoTransform.pixel(x: point.x, y: point.y)
        // Written so that NaN fails every comparison: no cell.
        guard pixel.column >= 0, pixel.row >= 0, pixel.column < Double(layout.width), pixel.row < Double(layout.height) else { return nil }
        return Located(column: Int(pixel.column), row: Int(pixel.row), transformer: transformer)
    }

    /// The operation from `spatialReference` into the raster's CRS, or nil
    /// when the point is already in it.
    @inline(__always) private func transformer(for spatialReference: SpatialReference?) throws(RasterError) -> CoordinateOperation? {
        guard let spatialReference else { return nil }
        if spatialReference.code == lastTransformerCode { return lastTransformer }
        return try makeTransformer(for: spatialReference)
    }

    /// The raster's CRS as a spatial reference PROJ knows.
    private func targetReference() throws(RasterError) -> SpatialReference {
        if let rasterReference { return try rasterReference.get() }
        let made: Result<SpatialReference, RasterError>
        switch info.crs {
        case .epsg(let code):
            let reference = SpatialReference(wkid: code)
            // PROJ not knowing the raster's own CRS is the raster's problem, not the point's spatial reference.
            do { try reference.validate(); made = .success(reference) } catch {
                made = .failure(.unknownRasterCRS(path: info.path, reason: "EPSG:\(code) is unknown to PROJ: \(error)"))
            }
        case .userDefined(let definition), .esriWKT(let definition):
            do { made = .success(try SpatialReference(wkt: definition)) } catch {
                made = .failure(.unknownRasterCRS(path: info.path, reason: "its WKT is unknown to PROJ: \(error)"))
            }
        case .unknown(let reason):
            made = .failure(.unknownRasterCRS(path: info.path, reason: reason))
        }
        rasterReference = made
        return try made.get()
    }

    private func makeTransformer(for spatialReference: SpatialReference) throws(RasterError) -> CoordinateOperation? {
        let code = spatialReference.code
        let found: CoordinateOperation?
        if case .epsg(let own) = info.crs, SpatialReference(wkid: own) == spatialReference {
            found = nil
        } else if let cached = transformers[code] {
            found = cached
        } else {
            let target = try targetReference()
            let created: CoordinateOperation
            do { created = try CoordinateOperation(from: spatialReference, to: target) } catch { throw RasterError(error) }
            if transformerOrder.count >= options.maximumTransformers {
                let dropped = transformerOrder.removeFirst()
                transformers[dropped] = nil
            }
            transformers[code] = created
            transformerOrder.append(code)
            found = created.isIdentity ? nil : created
        }
        lastTransformerCode = code
        lastTransformer = found
        return found
    }

    /// Every band of cell (`column`, `row`), which is inside the raster.
    @inline(__always) private func readSample(column: Int, row: Int) throws(RasterError) -> RasterSample {
        let bands = layout.bandCount
        let values: [Double?]
        if layout.isPlanarSeparate {
            var read: [Double?] = []
            read.reserveCapacity(bands)
            for band in 0..<bands {
                let memory = try block(layout.block(column: column, row: row, band: band))
                read.append(checked(pixelType.load(from: memory, at: layout.byteOffset(column: column, row: row, band: band))))
            }
            values = read
        } else {
            let memory = try block(layout.block(column: column, row: row, band: 0))
            let first = layout.byteOffset(column: column, row: row, band: 0)
            let step = layout.bytesPerSample
            values = [Double?](unsafeUninitializedCapacity: bands) { buffer, initialized in
                var offset = first
                for band in 0..<bands {
                    buffer.initializeElement(at: band, to: checked(pixelType.load(from: memory, at: offset)))
                    offset &+= step
                }
                initialized = bands
            }
        }
        guard pixelType.isWideInteger else { return RasterSample(column: column, row: row, pixelType: pixelType, values: values) }
        // 64-bit integers: the exact value beside the Double (which rounds beyond 2⁵³).
        var wide: [Int64?] = []
        wide.reserveCapacity(bands)
        for band in 0..<bands {
            let memory = try block(layout.block(column: column, row: row, band: layout.isPlanarSeparate ? band : 0))
            wide.append(values[band] == nil ? nil : pixelType.loadWideInteger(from: memory, at: layout.byteOffset(column: column, row: row, band: band)))
        }
        return RasterSample(column: column, row: row, pixelType: pixelType, values: values, wideIntegers: wide)
    }

    @inline(__always) private func checked(_ value: Double) -> Double? {
        if let noData, noData.matches(value) { return nil }
        return value
    }

    /// The decoded block, from the cache or decoded now.
    @inline(__always) private func block(_ block: Int) throws(RasterError) -> UnsafeRawPointer {
        if let memory = cache.lookup(block) { return memory }
        return try cache.insert(block) { (memory: UnsafeMutableRawPointer) throws(RasterError) in try decode(block, into: memory) }
    }

    /// Decodes `block` with libtiff into `memory` (`blockByteCount` bytes).
    private func decode(_ block: Int, into memory: UnsafeMutableRawPointer) throws(RasterError) {
        let expected = layout.byteCount(ofBlock: block)
        let strile = UInt32(truncatingIfNeeded: block)
        _ = tiff.takeError()
        if TIFFGetStrileByteCount(tiff.pointer, strile) == 0 && TIFFGetStrileOffset(tiff.pointer, strile) == 0 {
            fillSparse(memory)
            return
        }
        let read = layout.isTiled
            ? TIFFReadEncodedTile(tiff.pointer, strile, memory, tmsize_t(layout.blockByteCount))
            : TIFFReadEncodedStrip(tiff.pointer, strile, memory, tmsize_t(layout.blockByteCount))
        guard read >= 0, Int(read) >= expected else {
            let detail = tiff.takeError() ?? "libtiff decoded \(read) bytes, expected \(expected)"
            throw RasterError.readFailed(path: info.path, block: block, detail: detail)
        }
    }

    /// An unwritten block: NoData (converted to the pixel type), else zeros.
    private func fillSparse(_ memory: UnsafeMutableRawPointer) {
        guard let value = info.noData?.value, value != 0 else {
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: layout.blockByteCount)
            return
        }
        var offset = 0
        while offset < layout.blockByteCount {
            pixelType.store(value, to: memory, at: offset)
            offset += layout.bytesPerSample
        }
    }

    /// The number of a cell inside the raster in the extent cache (row · width + column).
    @inline(__always) private func cellNumber(column: Int, row: Int) -> Int {
        row &* layout.width &+ column
    }

    /// The envelope of the cell's four corners, transformed back into the
    /// point's spatial reference when a transformer is given.
    private func cellExtent(column: Int, row: Int, transformer: CoordinateOperation?, wkid: Int?) throws(RasterError) -> Envelope {
        guard let geoTransform else {
            throw RasterError.notGeoreferenced(path: info.path, reason: info.notGeoreferencedReason ?? "no geotransform")
        }
        let inside = column >= 0 && row >= 0 && column < layout.width && row < layout.height
        let cell = transformer != nil && inside ? cellNumber(column: column, row: row) : nil
        if let transformer, let cell, let held = extentCache.lookup(cell: cell, code: transformer.source.code) {
            return Envelope(xmin: held.xmin, ymin: held.ymin, xmax: held.xmax, ymax: held.ymax, wkid: wkid)
        }
        var corners = self.corners(column: column, row: row, of: geoTransform)
        if let transformer {
            do {
                corners.0 = try transformer.inverse(x: corners.0.x, y: corners.0.y)
                corners.1 = try transformer.inverse(x: corners.1.x, y: corners.1.y)
                corners.2 = try transformer.inverse(x: corners.2.x, y: corners.2.y)
                corners.3 = try transformer.inverse(x: corners.3.x, y: corners.3.y)
            } catch {
                throw RasterError(error)
            }
        }
        let extent = Envelope(xmin: min(min(corners.0.x, corners.1.x), min(corners.2.x, corners.3.x)),
                              ymin: min(min(corners.0.y, corners.1.y), min(corners.2.y, corners.3.y)),
                              xmax: max(max(corners.0.x, corners.1.x), max(corners.2.x, corners.3.x)),
                              ymax: max(max(corners.0.y, corners.1.y), max(corners.2.y, corners.3.y)), wkid: wkid)
        if let transformer, let cell {
            extentCache.insert(cell: cell, code: transformer.source.code,
                               xmin: extent.xmin, ymin: extent.ymin, xmax: extent.xmax, ymax: extent.ymax)
        }
        return extent
    }
}

/// The corner buffer of one batch, handed to the parts that each transform
/// and reduce their own cells' range of it.
private struct CornerBuffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Double>
}

/// An open raster is confined to one thread/actor at a time (see ``GeoTIFFRaster``).
@available(*, unavailable)
extension GeoTIFFRaster: Sendable {}

/// A raster's block-cache counters. `Sendable`.
public struct RasterCacheStatistics: Sendable, Hashable {
    /// Tiles/strips decoded since the raster was opened (each miss decodes one).
    public let decodedBlocks: Int
    /// Blocks held now.
    public let cachedBlocks: Int
    /// Bytes of decoded data held now (≤ max(cacheBytes, one block)).
    public let cachedBytes: Int
    /// The most blocks the cache holds.
    public let capacityBlocks: Int
    /// Bytes of one decoded block.
    public let blockByteCount: Int
    /// Lookups answered without decoding.
    public let hits: Int
    /// Cell extents in another reference than the raster's taken from the
    /// extent cache instead of transforming the cell's corners again.
    public let extentHits: Int
}
