import EntityStreamCore
import Synchronization
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// A feature layer served from a file without holding the file: a file
/// larger than ``SimulatorConfiguration/layerStreamingThreshold`` in a
/// format that streams (CSV, Esri JSON lines, GeoJSON sequences,
/// recordings) is read through the same ``FeatureFileScan`` the one-shot
/// analyses read, so a layer can be larger than memory.
///
/// Start-up reads the file once into an ``Index`` (a CSV's layout is
/// settled in the same pass): its row count, extent and time extent, which the layer's
/// description reports as a loaded layer's would. Esri JSON lines are read
/// once to open them (their layout needs every record): that pass gives the
/// index too (``FeatureFileScan/indexAtOpen``), and no other is made unless
/// it could not (points in another reference, a file's own object ids,
/// declared fields, time values that are not all dates). Every query then reads
/// the file again, chunk by chunk, and the query engine answers each
/// chunk's table (object ids are those of the whole file), keeping only
/// what the answer needs:
/// - `returnCountOnly` and `returnExtentOnly`: each chunk's count and
///   extent, summed and joined;
/// - statistics (`outStatistics`, `returnDistinctValues`): the statistics
///   engine's mergeable ``FeatureStatisticsAggregation`` fed with each
///   chunk's selected rows, then paged as the engine pages;
/// - `returnIdsOnly` without `orderByFields`: the ids alone (8 bytes a match);
/// - a page of features in object-id order, when ids are numbered in file
///   order: only the rows ranked `resultOffset` to `resultOffset` +
///   page size (one more, to tell `exceededTransferLimit`), and reading stops
///   once they are found unless `returnQueryExtent` needs every match;
/// - any other page (`orderByFields`, a file's own object ids): a running
///   top `resultOffset` + page size + 1 by the query's order, refused (400)
///   beyond ``maximumRows``.
/// The engine then answers the page on the rows kept, so the features,
/// their order and `exceededTransferLimit` are the loaded layer's. Every
/// parameter is first checked by the engine on a table of no rows, so a
/// bad one is refused before anything is read, with the loaded layer's error.
///
/// Memory: the scan's chunks in flight plus what is kept (above), whatever
/// the file's size. Queries run at once: each reads the file on threads of
/// its own (the CSV layout was settled at start-up, so scans only read).
///
/// A query reads the file up to its size at start-up: lines appended since
/// are not read (they were not indexed). A file cut shorter than that
/// answers no query with fewer rows: the query fails (HTTP 500 naming the
/// file, ``FeatureLoadError/Reason/shrank(size:expected:)``), and each such
/// query is counted (``shrunkReads``) and logged with the count.
final class StreamedFileLayer: LayerSource, Sendable {
    /// What one streamed pass at start-up learned about the file.
    typealias Index = FeatureFileIndex

    let name: String
    let path: String
    let scan: any FeatureFileScan
    let engine: FeatureQueryEngine
    let index: Index
    let description: LayerDescription
    /// The most rows an ordered page (or an ordered id list) may keep.
    let maximumRows: Int
    private let empty: FeatureTable
    /// The most rows any page query has kept at once (what bounds its memory, beside the chunks in flight).
    private let keptHighWater = Atomic<Int>(0)
    /// Queries that failed because the file had shrunk since start-up.
    private let shrunkCount = Atomic<Int>(0)
    private let log: @Sendable (String) -> Void

    /// Opens `specification`'s file for streaming when its format streams
    /// (nil otherwise: the caller loads it whole) and reads it once for the
    /// ``Index`` (unless opening it told the index). Throws ``SimulatorError`` with the reader's message (file and line).
    static func open(_ specification: LayerSpecification, maxRecordCount: Int, supportsPagination: Bool,
                     statistics: (any FeatureStatisticsEngine)?, maximumRows: Int = 1_000_000,
                     chunkSize: Int = CSVFileScan.defaultChunkSize,
                     log: @escaping @Sendable (String) -> Void = { _ in }) async throws(SimulatorError) -> StreamedFileLayer? {
        var options = specification.options
        options.name = specification.name
        options.indexesAtOpen = true
        do {
            guard let scan = try await FeatureFileScans.open(path: specification.path, options: options, chunkSize: chunkSize) else { return nil }
            // Opening Esri JSON lines read the file once already, and learned the index when it could.
            let index: Index
            if let known = scan.indexAtOpen { index = known } else { index = try await indexReading(scan, specification) }
            return try StreamedFileLayer(name: specification.name, path: specification.path, scan: scan, index: index,
                                         engine: FeatureQueryEngine(maxRecordCount: maxRecordCount, supportsPagination: supportsPagination,
                                                                    statistics: statistics),
                                         maximumRows: maximumRows, log: log)
        } catch let error as SimulatorError {
            throw error
        } catch let error as FeatureLoadError {
            throw .layerFile(name: specification.name, error)
        } catch is CancellationError {
            throw .layerCancelled(name: specification.name)
        } catch {
            // The file scans throw untyped; any other error is kept as its text.
            throw .layerScan(name: specification.name, detail: "\(error)")
        }
    }

    /// The ``Index`` from one streamed pass over the file, which also settles a CSV's layout.
    private static func indexReading(_ scan: any FeatureFileScan, _ specification: LayerSpecification) async throws -> Index {
        var index = Index()
        // Only the object id, time and coordinate columns are converted (the extents need no other).
        let process: @Sendable (FeatureTable) -> (Int, Envelope?, TimeExtent?) = { table in (table.count, table.extent, table.dataTimeExtent) }
        func add(_ chunk: (Int, Envelope?, TimeExtent?)) {
            index.rows += chunk.0
            index.extent = Self.union(index.extent, chunk.1)
            index.timeExtent = Self.union(index.timeExtent, chunk.2)
        }
        // The same pass settles every column's type, so no later scan changes the layout (and scans may run at
        // once); when the columns converted had another type than the first chunk's, they are read again.
        var outcome = try await scan.scanSettlingLayout(neededFields: [], process: process, consume: add)
        if case .layoutChanged = outcome {
            index = Index()
            outcome = try await scan.scan(neededFields: [], process: process, consume: add)
        }
        guard case .finished = outcome else { throw SimulatorError.layerChanged(name: specification.name, path: specification.path) }
        return index
    }

    private init(name: String, path: String, scan: any FeatureFileScan, index: Index, engine: FeatureQueryEngine,
                 maximumRows: Int, log: @escaping @Sendable (String) -> Void) throws {
        self.name = name
        self.log = log
        self.path = path
        self.scan = scan
        self.index = index
        self.engine = engine
        self.maximumRows = maximumRows
        empty = try scan.emptyTable()
        var description = LayerDescription(table: empty, id: 0, engine: engine)
        description.extent = index.extent
        description.timeInfo?.timeExtent = index.timeExtent
        self.description = description
    }

    /// What the loader reports (the format, notes, skipped records), as a
    /// loaded table's report: the layout's, with the rows the index counted.
    var report: FeatureLoadReport {
        var report = empty.report
        report.rows = index.rows
        return report
    }

    /// The most rows a page query has kept at once so far.
    var peakRowsKept: Int { keptHighWater.load(ordering: .relaxed) }

    /// The queries that failed so far because the file was shorter than at start-up.
    var shrunkReads: Int { shrunkCount.load(ordering: .relaxed) }

    private func noteKept(_ count: Int) {
        keptHighWater.max(count, ordering: .relaxed)
    }

    /// The geometry type, for the start-up log.
    var geometryType: FeatureGeometryType { empty.geometryType }

    func currentDescription() async -> LayerDescription { description }

    /// Never used: ``answer(_:)`` answers every query.
    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer {
        SimulatedLayer(table: empty, maxRecordCount: engine.maxRecordCount, supportsPagination: engine.supportsPagination,
                       statistics: engine.statistics)
    }

    /// Answers `query` by reading the file (see the type's description).
    /// - Throws: ``FeatureQueryError`` for a parameter that cannot be
    ///   honoured; ``FeatureLoadError`` when the file cannot be read (one
    ///   that shrank since start-up counted in ``shrunkReads`` and logged).
    func answer(_ query: FeatureQuery) async throws -> FeatureQueryResult? {
        do {
            return try await read(query)
        } catch let error as FeatureLoadError {
            if case .shrank = error.reason {
                let count = shrunkCount.add(1, ordering: .relaxed).newValue
                log("layer \(name): query failed: \(error) (\(count) \(count == 1 ? "query" : "queries") so far)")
            }
            throw error
        }
    }

    private func read(_ query: FeatureQuery) async throws -> FeatureQueryResult? {
        var query = query
        if !engine.supportsPagination {
            query.resultOffset = nil
            query.resultRecordCount = nil
        }
        // Every parameter checked against the layout, with the loaded layer's errors, before reading.
        let probe = try engine.run(query, on: empty)
        if query.isStatisticsQuery { return try await statistics(query) }
        if query.returnExtentOnly || query.returnCountOnly { return try await countAndExtent(query, probe: probe) }
        if query.returnIDsOnly && query.orderBy.isEmpty { return try await objectIDs(query) }
        return try await page(query)
    }

    // MARK: Answers

    private func countAndExtent(_ query: FeatureQuery, probe: FeatureQueryResult) async throws -> FeatureQueryResult {
        let engine = self.engine
        var count = 0
        var extent: Envelope?
        _ = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, process: { table in
            try engine.run(query, on: table)
        }, consume: { result in
            switch result {
            case .count(let n): count += n
            case .extent(let box, _, let n):
                extent = Self.union(extent, box)
                count += n ?? 0
            default: break
            }
        })
        if case .extent(_, let reference, _) = probe {
            return .extent(extent, spatialReference: reference, count: query.returnCountOnly ? count : nil)
        }
        return .count(count)
    }

    private func statistics(_ query: FeatureQuery) async throws -> FeatureQueryResult {
        guard var aggregation = try engine.statistics?.aggregation(for: query, schema: empty.schema) else {
            throw FeatureQueryError.partialAggregationUnsupported(parameter: query.outStatistics != nil ? "outStatistics" : "returnDistinctValues")
        }
        let engine = self.engine
        _ = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, process: { table in
            (table, try engine.matchingRows(query, on: table))
        }, consume: { chunk in
            aggregation.add(chunk.0, rows: chunk.1)
        })
        return .statistics(FeatureQueryEngine.page(try aggregation.finish(), from: query.resultOffset, size: engine.pageSize(of: query)))
    }

    private func objectIDs(_ query: FeatureQuery) async throws -> FeatureQueryResult {
        let engine = self.engine
        var ids: [Int64] = []
        var fieldName = empty.objectIDField.name
        _ = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, process: { table in
            try engine.run(query, on: table)
        }, consume: { result in
            guard case .objectIDs(let name, let chunk) = result else { return }
            fieldName = name
            ids.append(contentsOf: chunk)
        })
        if !scan.assignsObjectIDs { ids.sort() }
        return .objectIDs(fieldName: fieldName, ids)
    }

    /// Stops a scan once a page has every row it needs.
    private struct PageComplete: Error {}

    private func page(_ query: FeatureQuery) async throws -> FeatureQueryResult {
        let engine = self.engine
        let offset = query.resultOffset ?? 0
        let pageSize = engine.pageSize(of: query)
        // Object-id order is file order: keep the window only, and stop when it is full.
        let inFileOrder = query.orderBy.isEmpty && scan.assignsObjectIDs && !query.returnIDsOnly
        let needsExtent = query.returnQueryExtent && empty.geometryType == .point
        let (keep, overflow) = query.returnIDsOnly ? (maximumRows, false) : offset.addingReportingOverflow(pageSize)
        guard !overflow, inFileOrder || keep <= maximumRows else {
            throw FeatureQueryError.orderedAnswerTooLarge(parameter: query.returnIDsOnly ? "orderByFields" : "resultOffset", maximum: maximumRows)
        }
        let extentQuery = Self.extentQuery(of: query)
        let orderQuery = Self.orderQuery(of: query)
        var kept = try Self.builder(like: empty)
        var matched = 0
        var extent: Envelope?
        do {
            _ = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, process: { table -> (FeatureTable, [Int], Envelope?) in
                var box: Envelope?
                if needsExtent, case .extent(let found, _, _) = try engine.run(extentQuery, on: table) { box = found }
                if inFileOrder { return (table, try engine.matchingRows(query, on: table), box) }
                // This chunk's best rows by the query's order (ties by object id).
                guard case .objectIDs(_, let ids) = try engine.run(orderQuery, on: table) else { return (table, [], box) }
                return (table, ids.prefix(keep + 1).compactMap { table.row(withObjectID: $0) }, box)
            }, consume: { chunk in
                let (table, rows, box) = chunk
                extent = Self.union(extent, box)
                if inFileOrder {
                    for row in rows {
                        if matched >= offset && matched <= offset + pageSize {
                            try kept.append(geometry: table.geometry(at: row), values: table.row(row).values)
                        }
                        matched += 1
                    }
                    noteKept(kept.count)
                    if kept.count > pageSize && !needsExtent { throw PageComplete() }
                } else if !rows.isEmpty {
                    // A chunk with no match leaves the running best as it is.
                    kept = try Self.best(keep + 1, of: kept.build(), and: rows, in: table, query: orderQuery, engine: engine)
                    noteKept(kept.count)
                }
            })
        } catch is PageComplete {}
        if query.returnIDsOnly && kept.count > keep {
            throw FeatureQueryError.tooManyIDsToOrder(maximum: maximumRows)
        }
        var pageQuery = query
        if inFileOrder { pageQuery.resultOffset = nil }
        var result = try engine.run(pageQuery, on: kept.build())
        if needsExtent, case .features(var selection) = result {
            selection.queryExtent = extent
            result = .features(selection)
        }
        return result
    }

    /// `query`'s selection as an extent query (in its output reference): what `returnQueryExtent` reports.
    static func extentQuery(of query: FeatureQuery) -> FeatureQuery {
        var extent = FeatureQuery.idsOnly(of: query)
        extent.returnIDsOnly = false
        extent.returnExtentOnly = true
        extent.outSpatialReference = query.outSpatialReference
        return extent
    }

    /// `query`'s selection as ids in its order (ties by object id).
    static func orderQuery(of query: FeatureQuery) -> FeatureQuery {
        var order = FeatureQuery.idsOnly(of: query)
        order.orderBy = query.orderBy
        return order
    }

    /// A builder of `table`'s layout that keeps the object ids it is given.
    static func builder(like table: FeatureTable) throws -> FeatureTableBuilder {
        try FeatureTableBuilder(name: table.name, schema: table.schema, objectIDFieldIndex: table.objectIDFieldIndex, assignsObjectIDs: false,
                                geometryType: table.geometryType, spatialReference: table.spatialReference,
                                startTimeFieldIndex: table.startTimeFieldIndex, endTimeFieldIndex: table.endTimeFieldIndex)
    }

    /// The first `count` rows by `query`'s order among the rows kept so far and `rows` of `table`.
    static func best(_ count: Int, of kept: FeatureTable, and rows: [Int], in table: FeatureTable, query: FeatureQuery,
                     engine: FeatureQueryEngine) throws -> FeatureTableBuilder {
        var both = try builder(like: kept)
        for row in 0..<kept.count { try both.append(geometry: kept.geometry(at: row), values: kept.row(row).values) }
        for row in rows { try both.append(geometry: table.geometry(at: row), values: table.row(row).values) }
        let candidates = both.build()
        guard candidates.count > count, case .objectIDs(_, let ids) = try engine.run(query, on: candidates) else { return both }
        var best = try builder(like: kept)
        for id in ids.prefix(count) {
            guard let row = candidates.row(withObjectID: id) else { continue }
            try best.append(geometry: candidates.geometry(at: row), values: candidates.row(row).values)
        }
        return best
    }

    static func union(_ a: Envelope?, _ b: Envelope?) -> Envelope? {
        guard let a else { return b }
        guard let b else { return a }
        return Envelope(xmin: min(a.xmin, b.xmin), ymin: min(a.ymin, b.ymin), xmax: max(a.xmax, b.xmax), ymax: max(a.ymax, b.ymax), wkid: a.wkid)
    }

    static func union(_ a: TimeExtent?, _ b: TimeExtent?) -> TimeExtent? {
        guard let a else { return b }
        guard let b, let start = [a.start, b.start].compactMap({ $0 }).min(), let end = [a.end, b.end].compactMap({ $0 }).max() else { return a }
        return try? TimeExtent(start: start, end: end)
    }
}
