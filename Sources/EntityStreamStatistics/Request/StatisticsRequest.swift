import EntityStreamFeatures
import EntityStreamModel

/// A grouped-statistics request as the user or a client gave it: the
/// statistics, the group-by fields, the order-by terms and an optional
/// having clause (ArcGIS aggregates: `AVG(f) > 10 AND COUNT(*) >= 5`).
///
/// Only text: ``StatisticsPlan`` checks it against a schema. The
/// initialisers read the command line's and REST's textual forms and throw
/// ``StatisticsError`` for malformed text or sizes beyond
/// ``StatisticsLimits``. A plain value type.
public struct StatisticsRequest: Sendable, Hashable {
    public var statistics: [StatisticDefinition]
    /// Group-by field names (matched case-insensitively), in output order.
    public var groupBy: [String]
    /// Order-by terms; empty means the group-by fields ascending.
    public var orderBy: [StatisticsOrdering]
    /// A having clause; nil or blank for none.
    public var having: String?

    public init(statistics: [StatisticDefinition], groupBy: [String] = [],
                orderBy: [StatisticsOrdering] = [], having: String? = nil) {
        self.statistics = statistics
        self.groupBy = groupBy
        self.orderBy = orderBy
        self.having = having
    }

    /// The command line's form: `--stat TYPE:FIELD[:ALIAS]` specs, group-by
    /// field names (each may itself be a comma list), `--order-by "NAME [ASC|DESC]"`
    /// terms (each may be a comma list) and an optional having clause.
    /// - Throws: ``StatisticsError`` for any malformed spec, name or term.
    public init(statisticSpecs: [String], groupBy: [String] = [], orderBy: [String] = [],
                having: String? = nil) throws(StatisticsError) {
        guard statisticSpecs.count <= StatisticsLimits.maximumStatistics else {
            throw .limitExceeded(what: .statistics, limit: StatisticsLimits.maximumStatistics)
        }
        var statistics: [StatisticDefinition] = []
        for spec in statisticSpecs { statistics.append(try StatisticDefinition(parsing: spec)) }
        var fields: [String] = []
        for list in groupBy { fields += try Self.fieldList(parsing: list) }
        var terms: [StatisticsOrdering] = []
        for list in orderBy { terms += try StatisticsOrdering.list(parsing: list) }
        try self.init(checking: statistics, groupBy: fields, orderBy: terms, having: having)
    }

    /// Builds a request after checking the sizes against ``StatisticsLimits``.
    init(checking statistics: [StatisticDefinition], groupBy: [String], orderBy: [StatisticsOrdering],
         having: String?) throws(StatisticsError) {
        guard statistics.count <= StatisticsLimits.maximumStatistics else {
            throw .limitExceeded(what: .statistics, limit: StatisticsLimits.maximumStatistics)
        }
        guard groupBy.count <= StatisticsLimits.maximumGroupByFields else {
            throw .limitExceeded(what: .groupByFields, limit: StatisticsLimits.maximumGroupByFields)
        }
        guard orderBy.count <= StatisticsLimits.maximumOrderTerms else {
            throw .limitExceeded(what: .orderByTerms, limit: StatisticsLimits.maximumOrderTerms)
        }
        if let having, having.utf8.count > StatisticsLimits.maximumTextLength {
            throw .limitExceeded(what: .havingBytes, limit: StatisticsLimits.maximumTextLength)
        }
        let blank = having.map { $0.trimmingSpaces.isEmpty } ?? true
        self.init(statistics: statistics, groupBy: groupBy, orderBy: orderBy, having: blank ? nil : having)
    }

    /// Reads a comma-separated field list (`groupByFieldsForStatistics=f1,f2`);
    /// empty or all-space text is no field.
    /// - Throws: ``StatisticsError/malformedGroupBy(text:reason:)`` for an
    ///   empty item (`a,,b`, a trailing comma) or a bad name;
    ///   ``StatisticsError/limitExceeded(what:limit:)`` beyond the limit.
    public static func fieldList(parsing text: String) throws(StatisticsError) -> [String] {
        if text.trimmingSpaces.isEmpty { return [] }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= StatisticsLimits.maximumGroupByFields else {
            throw .limitExceeded(what: .groupByFields, limit: StatisticsLimits.maximumGroupByFields)
        }
        var fields: [String] = []
        for item in items {
            let name = item.trimmingSpaces
            if name.isEmpty {
                throw .malformedGroupBy(text: text, reason: "an empty field name (two commas in a row, or a comma at an end)")
            }
            if let problem = StatisticDefinition.nameProblem(name, role: "field") {
                throw .malformedGroupBy(text: text, reason: problem)
            }
            fields.append(name)
        }
        return fields
    }
}
