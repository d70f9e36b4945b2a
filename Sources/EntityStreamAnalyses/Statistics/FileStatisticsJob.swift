import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamFiles
import EntityStream

/// Grouped statistics over a local file (CSV, Esri JSON, GeoJSON, a
/// recording) read as a feature table, computed exactly as the simulator's
/// layers answer the same REST query: ``FeatureQueryEngine`` applies
/// `where`, `time` and `geometry` (``query``), then ``TableStatisticsEngine``
/// aggregates — so a file and a layer serving it give identical records.
///
/// The plan is compiled against the file's schema after loading (unknown
/// field, `avg` of a string: the job fails with the engine's message before
/// any row is aggregated). Emits one `result` line per record, then a
/// summary (``FileStatisticsReport``): the file, its rows (`fileRows`), the
/// rows selected and aggregated (`rows`), the records, the names, the time extent.
///
/// A CSV file, Esri JSON lines, a GeoJSON sequence or a recording is
/// streamed (``FeatureFileScans``): chunks are parsed, filtered
/// and aggregated on two threads into one accumulator per chunk, merged in
/// file order (exact counts, integer sums and extremes; compensated sums
/// and double-double moments), so memory stays bounded by the chunks in
/// flight and the groups, whatever the file's size. A file that is one
/// JSON document is loaded whole (up to ``FeatureLoadOptions/maximumDocumentSize``).
public struct FileStatisticsJob: AnalysisJob {
    public let path: String
    public let load: FeatureLoadOptions
    public let request: StatisticsRequest
    /// `where`, `time`, `geometry` (its other parameters are replaced).
    public let query: FeatureQuery
    /// The bytes per chunk a streamed CSV file is read in.
    public var chunkSize = CSVFileScan.defaultChunkSize

    public init(path: String, load: FeatureLoadOptions = FeatureLoadOptions(), request: StatisticsRequest, query: FeatureQuery = FeatureQuery()) {
        self.path = path
        self.load = load
        self.request = request
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let scan: (any FeatureFileScan)?
        do { scan = try await FeatureFileScans.open(path: path, options: load, chunkSize: chunkSize) } catch let error as FeatureLoadError {
            throw AnalysisFailure(error.description)
        }
        if let scan { return try await runStreamed(scan, in: context) }
        let table: FeatureTable
        do { table = try FeatureFile.load(path: path, options: load) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        let plan: StatisticsPlan
        do { plan = try StatisticsPlan(request, schema: table.schema) } catch { throw AnalysisFailure(error.description) }
        var statisticsQuery = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                           spatialRelationship: query.spatialRelationship)
        request.apply(to: &statisticsQuery, plan: plan)
        let engine = FeatureQueryEngine(maxRecordCount: Int.max, statistics: TableStatisticsEngine())
        let result: FeatureQueryResult
        do { result = try engine.run(statisticsQuery, on: table) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        guard case .statistics(let rows) = result else { throw AnalysisFailure("the file's query engine answered no statistics") }
        let records = plan.records(from: rows)
        try await StatisticsRecordJSON.emit(records, in: context)
        var countQuery = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                      spatialRelationship: query.spatialRelationship, returnCountOnly: true)
        countQuery.outFields = []
        var matched = table.count
        if case .count(let count)? = try? engine.run(countQuery, on: table) { matched = count }
        return AnalysisSummary(FileStatisticsReport(file: path, fileRows: table.count, rows: matched, records: records.count,
                                                    names: StatisticsNames(plan), timeExtent: query.time))
    }

    /// The statistics of a streamed CSV file (see the type's description).
    func runStreamed(_ scan: any FeatureFileScan, in context: AnalysisContext) async throws -> AnalysisSummary {
        let filter = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                  spatialRelationship: query.spatialRelationship)
        let maximumGroups = StatisticsLimits.defaultMaximumGroups
        for attempt in 1...2 {
            let schema = scan.schema
            let plan: StatisticsPlan
            do { plan = try StatisticsPlan(request, schema: schema) } catch { throw AnalysisFailure(error.description) }
            let rowFilter: FeatureRowFilter
            do { rowFilter = try FeatureQueryEngine(maxRecordCount: Int.max).rowFilter(filter, on: try scan.emptyTable()) } catch {
                throw AnalysisFailure(String(describing: error))
            }
            var total = plan.makeAccumulator(maximumGroups: maximumGroups)
            var matched = 0
            var progress = FileScanProgress(scan, in: context)
            let outcome: CSVFileScan.Outcome
            do {
                // The rows the filter passes go straight into each chunk's accumulator.
                outcome = try await scan.aggregate(neededFields: Set(plan.referencedFieldIndices), filter: rowFilter) {
                    ChunkStatistics(accumulator: plan.makeAccumulator(maximumGroups: maximumGroups), matched: 0)
                } consume: { chunk in
                    try context.checkCancellation()
                    total.merge(chunk.accumulator)
                    matched += chunk.matched
                    await progress.chunkDelivered()
                }
            } catch let error as FeatureLoadError {
                throw AnalysisFailure(error.description)
            } catch let error as FeatureQueryError {
                throw AnalysisFailure(error.description)
            }
            guard case .finished(let fileRows) = outcome else {
                if attempt == 2 { throw AnalysisFailure("\(path): the file changed while it was read") }
                continue
            }
            let result = total.finish()
            if result.rowsOverGroupLimit > 0 {
                throw AnalysisFailure(FeatureQueryError("groupByFieldsForStatistics",
                                                        "the query forms more than \(maximumGroups) groups, the most this server computes").description)
            }
            try await StatisticsRecordJSON.emit(result.records, in: context)
            return AnalysisSummary(FileStatisticsReport(file: path, fileRows: fileRows, rows: matched, records: result.records.count,
                                                        names: StatisticsNames(plan), timeExtent: query.time))
        }
        throw AnalysisFailure("\(path): the file changed while it was read")
    }
}

/// One chunk's share of a streamed statistics job: its rows that passed the filter, aggregated.
struct ChunkStatistics: FeatureRowSink {
    var accumulator: StatisticsAccumulator
    var matched: Int

    mutating func take(_ row: FeatureTableRowValues) {
        accumulator.add(row)
        matched += 1
    }
}
