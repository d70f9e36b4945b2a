import EntityStreamCore
import Statistics

/// Grouped statistics over a local file (CSV, Esri JSON, GeoJSON, a
/// recording) read as a feature table, computed exactly as the simulator's
/// layers answer the same REST query: ``FeatureQueryEngine`` applies
/// `where`, `time` and `geometry` (``query``), then ``TableStatisticsEngine``
/// aggregates — so a file and a layer serving it give identical records.
///
/// The plan is compiled against the file's schema after loading (unknown
/// field, `avg` of a string: the job fails with the engine's message before
/// any row is aggregated). Emits one `result` line per record, then a
/// summary: the file, its rows (`fileRows`), the rows selected and
/// aggregated (`rows`), the records, the names, the time extent.
public struct FileStatisticsJob: AnalysisJob {
    public let path: String
    public let load: FeatureLoadOptions
    public let request: StatisticsRequest
    /// `where`, `time`, `geometry` (its other parameters are replaced).
    public let query: FeatureQuery

    public init(path: String, load: FeatureLoadOptions = FeatureLoadOptions(), request: StatisticsRequest, query: FeatureQuery = FeatureQuery()) {
        self.path = path
        self.load = load
        self.request = request
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> JSONObject {
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
        var summary = JSONObject([("file", .string(path)), ("fileRows", .int(Int64(table.count))), ("rows", .int(Int64(matched))),
                                  ("records", .int(Int64(records.count)))])
        summary.append(contentsOf: StatisticsRecordJSON.names(plan))
        if let time = query.time { summary.append(key: "timeExtent", value: time.summaryJSON) }
        return summary
    }
}
