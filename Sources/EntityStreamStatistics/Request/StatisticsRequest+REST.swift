import EntityStreamModel
import EntityStreamFeatures

extension StatisticsRequest {
    /// The ArcGIS REST query form: `outStatistics` (JSON array of
    /// `{"statisticType":"avg","onStatisticField":"F","outStatisticFieldName":"A"}`),
    /// `groupByFieldsForStatistics=f1,f2`, `orderByFields=f1 ASC,f2 DESC` and
    /// `havingClause`. Absent, empty or blank parameters mean none.
    /// `outStatisticFieldName` may be absent, null or empty (ArcGIS's default
    /// name is used). Keys are matched exactly; unknown keys are refused, not ignored.
    /// - Throws: ``StatisticsError/malformedOutStatistics(reason:)`` for JSON
    ///   that is not such an array, ``StatisticsError/unknownStatisticType(_:)``
    ///   (also for `percentile_cont`/`percentile_disc`, which are not supported),
    ///   and the errors of the other parameters' parsers.
    public init(outStatistics: String, groupByFieldsForStatistics: String? = nil,
                orderByFields: String? = nil, havingClause: String? = nil) throws(StatisticsError) {
        guard outStatistics.utf8.count <= StatisticsLimits.maximumTextLength else {
            throw .limitExceeded(what: .outStatisticsBytes, limit: StatisticsLimits.maximumTextLength)
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(outStatistics, maxDepth: 8)
        } catch {
            throw .malformedOutStatistics(reason: error.description)
        }
        guard case .array(let items) = json else {
            throw .malformedOutStatistics(reason: "expected a JSON array of statistic definitions")
        }
        guard items.count <= StatisticsLimits.maximumStatistics else {
            throw .limitExceeded(what: .statistics, limit: StatisticsLimits.maximumStatistics)
        }
        var statistics: [StatisticDefinition] = []
        for (index, item) in items.enumerated() {
            statistics.append(try Self.definition(item, index: index))
        }
        try self.init(checking: statistics,
                      groupBy: try Self.fieldList(parsing: groupByFieldsForStatistics ?? ""),
                      orderBy: try StatisticsOrdering.list(parsing: orderByFields ?? ""),
                      having: havingClause)
    }

    private static let knownKeys: Set<String> = ["statisticType", "onStatisticField", "outStatisticFieldName"]

    private static func definition(_ item: JSONValue, index: Int) throws(StatisticsError) -> StatisticDefinition {
        let place = "outStatistics[\(index)]"
        guard case .object(let object) = item else {
            throw .malformedOutStatistics(reason: "\(place) is not an object")
        }
        for key in object.keys where !knownKeys.contains(key) {
            throw .malformedOutStatistics(reason: "\(place) has an unknown key '\(key)' (expected statisticType, onStatisticField, outStatisticFieldName)")
        }
        guard let typeName = object["statisticType"]?.stringValue else {
            throw .malformedOutStatistics(reason: "\(place) needs a string statisticType")
        }
        guard let type = StatisticType(restName: typeName) else { throw .unknownStatisticType(typeName) }
        guard let field = object["onStatisticField"]?.stringValue else {
            throw .malformedOutStatistics(reason: "\(place) needs a string onStatisticField")
        }
        if let problem = StatisticDefinition.nameProblem(field.trimmingSpaces, role: "field") {
            throw .malformedOutStatistics(reason: "\(place): \(problem)")
        }
        var alias: String?
        switch object["outStatisticFieldName"] {
        case nil, .null?: break
        case .string(let name)? where name.trimmingSpaces.isEmpty: break
        case .string(let name)?:
            if let problem = StatisticDefinition.nameProblem(name.trimmingSpaces, role: "alias") {
                throw .malformedOutStatistics(reason: "\(place): \(problem)")
            }
            alias = name.trimmingSpaces
        default:
            throw .malformedOutStatistics(reason: "\(place): outStatisticFieldName must be a string")
        }
        return StatisticDefinition(field: field.trimmingSpaces, type: type, alias: alias)
    }
}
