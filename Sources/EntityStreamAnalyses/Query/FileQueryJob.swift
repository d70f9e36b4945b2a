import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamFiles
import EntityStream

/// The same query as ``LayerQueryJob`` on a local file (CSV, Esri JSON,
/// GeoJSON, a recording) read as a feature table: one `result` line per
/// feature, then a summary (``FileQueryReport``): the file, its rows, the count.
///
/// A CSV file, Esri JSON lines, a GeoJSON sequence or a recording is
/// streamed (``FeatureFileScans``) for features and counts:
/// chunks are parsed and filtered on two threads and the matches written
/// in file order as they are found, reading stopping once `--limit`
/// features are out (the summary then has no `rows`, the file was not
/// read to its end); with an order (or an object-id column, whose order
/// is the answer's) the matches go through an ``ExternalSorter``: with
/// `--limit` the best matches are kept as chunks arrive (a bounded top-k),
/// and matches that outgrow ``sortRunBytes`` are written, sorted, to
/// temporary files and merged at the end (an external sort), so memory
/// stays bounded whatever the count. Before anything
/// is written, one pass over the file settles the types of the columns
/// written (so nothing written is ever taken back). Object ids, offsets,
/// extents and a file that is one JSON document are answered from the
/// file loaded whole.
public struct FileQueryJob: AnalysisJob {
    public let path: String
    public let load: FeatureLoadOptions
    public let query: FeatureQuery
    /// The bytes per chunk a streamed CSV file is read in.
    public var chunkSize = CSVFileScan.defaultChunkSize
    /// The bytes of matches an ordered query holds before it writes them,
    /// sorted, to a temporary file (see ``ExternalSorter``).
    public var sortRunBytes = 64 << 20
    /// Where an ordered query's temporary files are made.
    public var temporaryDirectory = ExternalSorterDefaults.temporaryDirectory

    public init(path: String, load: FeatureLoadOptions = FeatureLoadOptions(), query: FeatureQuery) {
        self.path = path
        self.load = load
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        if streams {
            let scan: (any FeatureFileScan)?
            do { scan = try await FeatureFileScans.open(path: path, options: load, chunkSize: chunkSize) } catch let error as FeatureLoadError {
                throw AnalysisFailure(error.description)
            }
            if let scan {
                do { return try await runStreamed(scan, in: context) } catch let error as FeatureLoadError {
                    throw AnalysisFailure(error.description)
                } catch let error as FeatureQueryError {
                    throw AnalysisFailure(error.description)
                } catch let error as ExternalSortError {
                    throw AnalysisFailure("\(path): \(error.description)")
                }
            }
        }
        let table: FeatureTable
        do { table = try FeatureFile.load(path: path, options: load) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        let result: FeatureQueryResult
        do { result = try FeatureQueryEngine(maxRecordCount: Int.max).run(query, on: table) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        let answer: FileQueryReport.Answer
        switch result {
        case .count(let count):
            answer = .count(count)
        case .features(let selection):
            try await Self.emit(selection.rows.indices.map { position in
                AnalysisFeature(table: table, row: selection.rows[position], fields: selection.fieldIndices,
                                geometry: selection.returnGeometry ? selection.geometry(at: position) : nil)
            }, in: context)
            answer = .count(selection.rows.count)
        case .objectIDs(_, let ids):
            answer = .count(ids.count)
        case .statistics:
            throw AnalysisFailure("statistics queries run with the statistics command")
        case .extent(let extent, _, let count):
            answer = .extent(extent, count: count)
        }
        return report(rows: table.count, answer)
    }

    /// True when the query can be answered from a streamed file.
    var streams: Bool {
        !query.returnIDsOnly && !query.returnExtentOnly && !query.isStatisticsQuery && query.objectIDs == nil
            && query.resultOffset == nil && query.text == nil
    }

    /// The query over a streamed CSV file (see the type's description).
    func runStreamed(_ scan: any FeatureFileScan, in context: AnalysisContext) async throws -> AnalysisSummary {
        let engine = FeatureQueryEngine(maxRecordCount: Int.max)
        if query.returnCountOnly {
            // Nothing is written before the end: one pass, again if the layout changed.
            var counting = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                        spatialRelationship: query.spatialRelationship)
            counting.returnCountOnly = true
            let filter = counting
            for _ in 1...2 {
                var count = 0
                var progress = FileScanProgress(scan, in: context)
                let outcome = try await scan.scan(neededFields: [], filter: try engine.rowFilter(filter, on: try scan.emptyTable()),
                                                  readsGeometry: false) { table in
                    table.count
                } consume: { chunkCount in
                    try context.checkCancellation()
                    count += chunkCount
                    await progress.chunkDelivered()
                }
                guard case .finished(let rows) = outcome else { continue }
                return report(rows: rows, .count(count))
            }
            throw AnalysisFailure("\(path): the file changed while it was read")
        }
        var needed = Self.fields(of: query, in: scan.schema)
        try await scan.verifyLayout(neededFields: needed)
        needed = Self.fields(of: query, in: scan.schema)
        let limit = query.resultRecordCount
        let schema = scan.schema
        let order = query.orderBy.compactMap { entry in schema.index(ofField: entry.field).map { (field: $0, descending: entry.descending) } }
        let unordered = order.isEmpty && scan.assignsObjectIDs
        let rowFilter = try engine.rowFilter(query, on: try scan.emptyTable())
        let sorter = ExternalSorter<RankedFeature>(runBytes: sortRunBytes, limit: limit, directory: temporaryDirectory) { $0.precedes($1, order: order) }
        var written = 0
        var progress = FileScanProgress(scan, in: context)
        let outcome: CSVFileScan.Outcome
        do {
            // Each chunk's table holds the rows the filter passes; the engine then answers the query over them.
            outcome = try await scan.scan(neededFields: needed, filter: rowFilter, readsGeometry: query.returnGeometry) { table -> [RankedFeature] in
                guard case .features(let selection) = try engine.run(query, on: table) else { return [] }
                return selection.rows.enumerated().map { position, row in
                    RankedFeature(keys: order.map { table.value(row: row, field: $0.field) }, objectID: table.objectID(at: row),
                                  feature: AnalysisFeature(table: table, row: row, fields: selection.fieldIndices,
                                                           geometry: selection.returnGeometry ? selection.geometry(at: position) : nil))
                }
            } consume: { features in
                try context.checkCancellation()
                await progress.chunkDelivered()
                if unordered {
                    let take = limit.map { min(features.count, $0 - written) } ?? features.count
                    try await Self.emit(features.prefix(take).map(\.feature), in: context)
                    written += take
                    if let limit, written >= limit { throw LimitReached() }
                } else {
                    for feature in features { try sorter.append(feature) }
                }
            }
        } catch is LimitReached {
            return report(rows: nil, .count(written))
        }
        guard case .finished(let fileRows) = outcome else { throw AnalysisFailure("\(path): the file changed while it was read") }
        if !unordered {
            try await sorter.finish { features in
                try await Self.emit(features.map(\.feature), in: context)
                written += features.count
            }
        }
        return report(rows: fileRows, .count(written))
    }

    /// The summary: the file, its `rows` (nil: not read to its end), the answer and the time extent asked for.
    private func report(rows: Int?, _ answer: FileQueryReport.Answer) -> AnalysisSummary {
        AnalysisSummary(FileQueryReport(file: path, rows: rows, answer: answer, timeExtent: query.time))
    }

    /// The schema indices of the fields `query` reads or writes (nil: all of them).
    static func fields(of query: FeatureQuery, in schema: Schema) -> Set<Int>? {
        var fields: Set<Int> = []
        if !query.returnCountOnly {
            guard let outFields = query.outFields, !outFields.contains("*") else { return nil }
            fields.formUnion(outFields.compactMap { schema.index(ofField: $0.trimmingSpaces) })
        }
        if let text = query.whereClause, let clause = try? WhereClause(text, schema: schema) { fields.formUnion(clause.referencedFieldIndices) }
        fields.formUnion(query.orderBy.compactMap { schema.index(ofField: $0.field) })
        return fields
    }

    /// Writes `features` as `result` lines in batches, honouring cancellation.
    static func emit(_ features: [AnalysisFeature], in context: AnalysisContext) async throws {
        var start = 0
        while start < features.count {
            try context.checkCancellation()
            let end = min(start + 1024, features.count)
            await context.emit(Array(features[start..<end]))
            start = end
        }
    }
}

/// Thrown by a streamed query's consumer once `--limit` features are written: stops the reading.
private struct LimitReached: Error {}

/// A match of a streamed query with what orders it: the values of the
/// order-by fields, then the object id (the engine's tie-break).
struct RankedFeature: Sendable {
    var keys: [AttributeValue]
    var objectID: Int64
    var feature: AnalysisFeature

    func precedes(_ other: RankedFeature, order: [(field: Int, descending: Bool)]) -> Bool {
        for (index, term) in order.enumerated() {
            let comparison = AttributeValueOrdering.compare(keys[index], other.keys[index])
            if comparison != 0 { return term.descending ? comparison > 0 : comparison < 0 }
        }
        return objectID < other.objectID
    }
}
