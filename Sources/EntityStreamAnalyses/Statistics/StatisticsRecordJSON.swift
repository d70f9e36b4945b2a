import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel
import EntityStream

/// How statistics records and summaries are reported, the same for the
/// live store, files and remote layers:
/// - a record: the typed ``StatisticsRecord`` (group-by values, then the
///   statistics in request order), which the output formats render
///   (`"group":{…}`, `"statistics":{…}` on a JSON line; a row of a CSV table);
/// - the names (``StatisticsNames``): `"groupFields":[…]`, `"statisticNames":[…]`
///   in the summary, and the same as the summary's table ``AnalysisSummary/columns``
///   (what a table's header needs, even with no record).
/// Stateless.
public enum StatisticsRecordJSON {
    /// Publishes `records` as `result` lines, in batches, honouring cancellation.
    static func emit(_ records: [StatisticsRecord], in context: AnalysisContext) async throws {
        var start = 0
        while start < records.count {
            try context.checkCancellation()
            let end = min(start + 1024, records.count)
            await context.emit(results: records[start..<end].map(AnalysisResult.statistics))
            start = end
        }
    }
}

extension JSONObject {
    /// Appends every member of `other`, in order.
    public mutating func append(contentsOf other: JSONObject) {
        for member in other { append(key: member.key, value: member.value) }
    }
}
