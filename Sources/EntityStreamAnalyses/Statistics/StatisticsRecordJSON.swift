import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel
import EntityStream

/// How statistics records and summaries are written on `analysis` lines,
/// the same for the live store, files and remote layers:
/// - a record: `"group":{field: value, …}` (group-by order) then
///   `"statistics":{name: value, …}` (request order) — counts as integers,
///   other numbers as doubles, strings as strings, dates as epoch ms, no
///   value as null (``AttributeJSON``);
/// - the names: `"groupFields":[…]`, `"statisticNames":[…]` (what a
///   table's header needs, even with no record).
/// The keys whose values are dates are handed along (``dateKeys(_:)``), for
/// the feature formats to write them as ISO-8601 text. Stateless.
public enum StatisticsRecordJSON {
    /// The members of one `result` line.
    public static func members(_ record: StatisticsRecord) -> JSONObject {
        var group = JSONObject()
        for item in record.group { group.append(key: item.name, value: AttributeJSON.value(item.value)) }
        var statistics = JSONObject()
        for item in record.statistics { statistics.append(key: item.name, value: AttributeJSON.value(item.value)) }
        return JSONObject([("group", .object(group)), ("statistics", .object(statistics))])
    }

    /// The group fields and statistics of `record` whose values are dates.
    public static func dateKeys(_ record: StatisticsRecord) -> [String] {
        (record.group + record.statistics).compactMap { item in
            if case .date = item.value { return item.name }
            return nil
        }
    }

    /// `"groupFields"` and `"statisticNames"` of `plan`, for a summary.
    public static func names(_ plan: StatisticsPlan) -> JSONObject {
        JSONObject([("groupFields", .array(plan.groupFieldNames.map(JSONValue.string))),
                    ("statisticNames", .array(plan.statisticNames.map(JSONValue.string)))])
    }

    /// Publishes `records` as `result` lines, in batches, honouring cancellation.
    static func emit(_ records: [StatisticsRecord], in context: AnalysisContext) async throws {
        var start = 0
        while start < records.count {
            try context.checkCancellation()
            let end = min(start + 1024, records.count)
            await context.emit(records: records[start..<end].map { (members($0), dateKeys($0)) })
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
