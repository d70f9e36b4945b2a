import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamFiles
import EntityStream

/// The same query as ``LayerQueryJob`` on a local file (CSV, Esri JSON,
/// GeoJSON, a recording) read as a feature table: one `result` line per
/// feature, then a summary with the count and what loading skipped.
///
/// A CSV file, Esri JSON lines, a GeoJSON sequence or a recording is
/// streamed (``FeatureFileScans``) for features and counts:
/// chunks are parsed and filtered on two threads and the matches written
/// in file order as they are found, reading stopping once `--limit`
/// features are out (the summary then has no `rows`, the file was not
/// read to its end); with an order (or an object-id column, whose order
/// is the answer's) the best `--limit` matches are kept as chunks arrive
/// (a bounded top-k), and without a limit every match is held and sorted
/// (memory in proportion to the matches, not the file). Before anything
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

    public init(path: String, load: FeatureLoadOptions = FeatureLoadOptions(), query: FeatureQuery) {
        self.path = path
        self.load = load
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> JSONObject {
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
                }
            }
        }
        let table: FeatureTable
        do { table = try FeatureFile.load(path: path, options: load) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        var summary = JSONObject([("file", .string(path)), ("rows", .int(Int64(table.count)))])
        let result: FeatureQueryResult
        do { result = try FeatureQueryEngine(maxRecordCount: Int.max).run(query, on: table) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        switch result {
        case .count(let count):
            summary.append(key: "count", value: .int(Int64(count)))
        case .features(let selection):
            try await Self.emit(selection.rows.indices.map { position in
                AnalysisFeature(table: table, row: selection.rows[position], fields: selection.fieldIndices,
                                geometry: selection.returnGeometry ? selection.geometry(at: position) : nil)
            }, in: context)
            summary.append(key: "count", value: .int(Int64(selection.rows.count)))
        case .objectIDs(_, let ids):
            summary.append(key: "count", value: .int(Int64(ids.count)))
        case .statistics:
            throw AnalysisFailure("statistics queries run with the statistics command")
        case .extent(let extent, _, let count):
            if let count { summary.append(key: "count", value: .int(Int64(count))) }
            summary.append(key: "extent", value: extent.map { .array([.double($0.xmin), .double($0.ymin), .double($0.xmax), .double($0.ymax)]) } ?? .null)
        }
        if let time = query.time { summary.append(key: "timeExtent", value: time.summaryJSON) }
        return summary
    }

    /// True when the query can be answered from a streamed file.
    var streams: Bool {
        !query.returnIDsOnly && !query.returnExtentOnly && !query.isStatisticsQuery && query.objectIDs == nil
            && query.resultOffset == nil && query.text == nil
    }

    /// The query over a streamed CSV file (see the type's description).
    func runStreamed(_ scan: any FeatureFileScan, in context: AnalysisContext) async throws -> JSONObject {
        let engine = FeatureQueryEngine(maxRecordCount: Int.max)
        var summary = JSONObject([("file", .string(path))])
        if query.returnCountOnly {
            // Nothing is written before the end: one pass, again if the layout changed.
            var counting = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                        spatialRelationship: query.spatialRelationship)
            counting.returnCountOnly = true
            let filter = counting
            for _ in 1...2 {
                var count = 0
                var progress = FileScanProgress(scan, in: context)
                let filtered = scan.keepsOnlyPassingRows
                let outcome = try await scan.scan(neededFields: filtered ? [] : nil, filter: try engine.rowFilter(filter, on: try scan.emptyTable()),
                                                  readsGeometry: false) { table in
                    filtered ? table.count : try engine.matchingRows(filter, on: table).count
                } consume: { chunkCount in
                    try context.checkCancellation()
                    count += chunkCount
                    await progress.chunkDelivered()
                }
                guard case .finished(let rows) = outcome else { continue }
                summary.append(key: "rows", value: .int(Int64(rows)))
                summary.append(key: "count", value: .int(Int64(count)))
                return finished(summary)
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
        var kept: [RankedFeature] = []
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
                    kept.append(contentsOf: features)
                    // A bounded top-k: sorted and cut back to the limit whenever it holds twice as many.
                    if let limit, kept.count >= 2 * limit {
                        kept.sort { $0.precedes($1, order: order) }
                        kept.removeLast(kept.count - limit)
                    }
                }
            }
        } catch is LimitReached {
            summary.append(key: "count", value: .int(Int64(written)))
            return finished(summary)
        }
        guard case .finished(let fileRows) = outcome else { throw AnalysisFailure("\(path): the file changed while it was read") }
        if !unordered {
            kept.sort { $0.precedes($1, order: order) }
            if let limit, kept.count > limit { kept.removeLast(kept.count - limit) }
            try await Self.emit(kept.map(\.feature), in: context)
            written = kept.count
        }
        summary.append(key: "rows", value: .int(Int64(fileRows)))
        summary.append(key: "count", value: .int(Int64(written)))
        return finished(summary)
    }

    private func finished(_ summary: JSONObject) -> JSONObject {
        var summary = summary
        if let time = query.time { summary.append(key: "timeExtent", value: time.summaryJSON) }
        return summary
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
