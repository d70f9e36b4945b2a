import EntityStreamCore
import EntityStreamModel
import EntityStream

/// Runs a `query-observations` request on a snapshot of the store: one
/// `result` line per observation (its track, entity, observation id and
/// receive time, then the point and attributes), then a summary with the
/// count, how many matched before the limit, the time field and extent used.
struct QueryObservationsJob: AnalysisJob {
    let request: QueryObservationsRequest
    static let batchSize = 1024

    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let snapshot = try await context.snapshot()
        let schema = snapshot.contents.schema
        let query = try request.compile(for: schema)
        var summary = JSONObject()
        summary.append(key: "timeField", value: .string(Self.describe(query.scan.timeKey, schema: schema)))
        summary.append(key: "timeExtent", value: query.scan.timeExtent.summaryJSON)
        if request.countOnly {
            let count = snapshot.contents.count(query.scan)
            summary.append(key: "count", value: .int(Int64(count)))
            return AnalysisSummary(summary)
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
        summary.append(key: "count", value: .int(Int64(result.rows.count)))
        summary.append(key: "matched", value: .int(Int64(result.matched)))
        summary.append(key: "exceededLimit", value: .bool(result.matched > result.rows.count))
        return AnalysisSummary(summary)
    }

    /// The time key as summaries name it: `received`, or the field name(s).
    static func describe(_ key: ObservationTimeKey, schema: Schema) -> String {
        switch key {
        case .received: return "received"
        case .field(let start, let end):
            return schema.fields[start].name + (end.map { "," + schema.fields[$0].name } ?? "")
        }
    }
}
