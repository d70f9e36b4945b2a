import EntityStreamCore
import EntityStreamModel
import EntityStream

/// Runs a `query-observations` request on a snapshot of the store: one
/// `result` line per observation (its track, entity, observation id and
/// receive time, then the point and attributes), then a summary
/// (``ObservationQueryReport``): the time field and extent used, the count and
/// how many matched before the limit.
struct QueryObservationsJob: AnalysisJob {
    let request: QueryObservationsRequest
    static let batchSize = 1024

    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let snapshot = try await context.snapshot()
        let schema = snapshot.contents.schema
        let query = try request.compile(for: schema)
        let timeField = ReportedTimeField(query.scan.timeKey, schema: schema)
        if request.countOnly {
            return AnalysisSummary(ObservationQueryReport(timeField: timeField, timeExtent: query.scan.timeExtent,
                                                          count: snapshot.contents.count(query.scan)))
        }
        let result = try query.run(on: snapshot.contents, shouldStop: { Task.isCancelled })
        let fields = query.outFields.map { $0.map { schema.fields[$0] } } ?? schema.fields
        var batch: [AnalysisResult] = []
        batch.reserveCapacity(Self.batchSize)
        for row in result.rows {
            batch.append(.observation(ObservationResult(entity: row.entity, observation: row.id, received: row.observation.receivedAt,
                                                        feature: AnalysisFeature(row.observation, fields: fields))))
            if batch.count == Self.batchSize {
                try context.checkCancellation()
                await context.emit(results: batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { await context.emit(results: batch) }
        return AnalysisSummary(ObservationQueryReport(timeField: timeField, timeExtent: query.scan.timeExtent,
                                                      count: result.rows.count, matched: result.matched))
    }
}
