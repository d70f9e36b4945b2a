import EntityStreamModel
import EntityStreamFeatures

/// The statistics engine of feature layers served from a ``FeatureTable``
/// (the simulator's layers, and local files queried as a layer would be):
/// ArcGIS's statistics queries computed by this module's one engine.
///
/// - `outStatistics` (with `groupByFieldsForStatistics`, `orderByFields`,
///   `havingClause`): the request is compiled by ``StatisticsPlan`` against
///   the table's schema, so ArcGIS's rules hold — `orderByFields` may name
///   only group-by fields or statistic output names, `havingClause` only
///   aggregates — and the rows the ``FeatureQueryEngine`` selected (`where`,
///   `time`, `geometry`, `objectIds` already applied) are aggregated in one
///   pass. One result row per group, group-by values first, then the
///   statistics in request order (``StatisticsPlan/outputFields(in:)``).
/// - `returnDistinctValues` without statistics: the distinct combinations
///   of `outFields` (a list, not `*`), ordered by `orderByFields` (fields of
///   that list) then the fields themselves.
/// Every refusal is a ``FeatureQueryError`` naming the parameter
/// (``StatisticsError/restParameter``); more groups than ``maximumGroups``
/// is refused too (`groupByFieldsForStatistics`), never truncated. Paging
/// of the result rows is the query engine's. Pure and `Sendable`.
public struct TableStatisticsEngine: FeatureStatisticsEngine {
    /// The most groups one query may form.
    public var maximumGroups: Int

    public init(maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) {
        self.maximumGroups = maximumGroups
    }

    public func statistics(of table: FeatureTable, rows: [Int], query: FeatureQuery) throws(FeatureQueryError) -> FeatureStatisticsResult {
        var aggregation = try Aggregation(query: query, schema: table.schema, maximumGroups: maximumGroups)
        aggregation.add(table, rows: rows)
        return try aggregation.finish()
    }

    public func aggregation(for query: FeatureQuery, schema: Schema) throws(FeatureQueryError) -> (any FeatureStatisticsAggregation)? {
        try Aggregation(query: query, schema: schema, maximumGroups: maximumGroups)
    }

    /// One statistics query's accumulator, fed table by table.
    struct Aggregation: FeatureStatisticsAggregation {
        let distinct: Bool
        let plan: StatisticsPlan
        let schema: Schema
        let maximumGroups: Int
        var accumulator: StatisticsAccumulator

        init(query: FeatureQuery, schema: Schema, maximumGroups: Int) throws(FeatureQueryError) {
            distinct = query.outStatistics == nil
            let request = distinct ? try TableStatisticsEngine.distinctRequest(query) : try StatisticsRequest(featureQuery: query)
            do { plan = try StatisticsPlan(request, schema: schema) } catch {
                if distinct, error.restParameter == "groupByFieldsForStatistics" { throw .statistics(parameter: "outFields", FeatureQueryError.Underlying(error)) }
                throw error.featureQueryError
            }
            self.schema = schema
            self.maximumGroups = maximumGroups
            accumulator = plan.makeAccumulator(maximumGroups: maximumGroups)
        }

        mutating func add(_ table: FeatureTable, rows: [Int]) {
            table.withRowValues { values, width in
                guard let base = values.baseAddress else { return }
                for row in rows where row >= 0 && row < table.count {
                    accumulator.add(FeatureTableRowValues(base: base + row &* width, width: width))
                }
            }
        }

        func finish() throws(FeatureQueryError) -> FeatureStatisticsResult {
            let result = accumulator.finish()
            if result.rowsOverGroupLimit > 0 {
                throw .tooManyGroups(parameter: distinct ? "outFields" : "groupByFieldsForStatistics", maximum: maximumGroups)
            }
            var fields = plan.outputFields(in: schema)
            if distinct { fields.removeLast(plan.statisticNames.count) }
            let records = result.records.map { record in
                record.group.map(\.value) + (distinct ? [] : record.statistics.map(\.value))
            }
            return FeatureStatisticsResult(fields: fields, rows: records)
        }
    }

    /// `returnDistinctValues`: the distinct `outFields` combinations, as a
    /// grouping by those fields with a hidden count.
    static func distinctRequest(_ query: FeatureQuery) throws(FeatureQueryError) -> StatisticsRequest {
        guard let fields = query.outFields, !fields.isEmpty, !fields.contains("*") else {
            throw .distinctWithoutOutFields
        }
        var request = StatisticsRequest(statistics: [StatisticDefinition(field: StatisticDefinition.allRows, type: .count,
                                                                         alias: "__distinct_count")],
                                        groupBy: fields.map { $0.trimmingSpaces })
        for entry in query.orderBy {
            guard fields.contains(where: { Schema.fold($0.trimmingSpaces) == Schema.fold(entry.field) }) else {
                throw .distinctOrderNotInOutFields(field: entry.field, outFields: fields)
            }
            request.orderBy.append(StatisticsOrdering(name: entry.field, direction: entry.descending ? .descending : .ascending))
        }
        return request
    }
}
