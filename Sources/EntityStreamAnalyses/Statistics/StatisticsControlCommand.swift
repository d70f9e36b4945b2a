import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStream

/// `statistics`: grouped statistics over the live store (the "Query table
/// statistics group and sort" sample on the stream), or over a remote layer.
///
/// ```json
/// {"id":3,"command":"statistics","of":"entities",
///  "statistics":[{"type":"avg","field":"speed"},{"type":"count","field":"vehiclename","alias":"plows"}],
///  "groupBy":["vehicletype","agency"],"orderBy":["plows DESC"],"having":"COUNT(vehiclename) > 1",
///  "where":"speed > 0","timeExtent":{"start":"2026-11-23T08:00:00Z","end":null},"geometry":"-112,40.5,-111.8,40.7"}
/// ```
///
/// - `statistics` (required): objects `{"type","field","alias"?}` — type
///   `count|sum|min|max|avg|stddev|var`, field a field name or `*` (count
///   only), alias the output name (default `AVG_speed`, …) — or
///   `"TYPE:FIELD[:ALIAS]"` strings.
/// - `of`: `entities` (default: the latest observation of each entity, as
///   the SDK's dynamic entities) or `observations` (every retained one).
/// - `groupBy`, `orderBy` (`NAME [ASC|DESC]`, group-by fields or statistic
///   output names): arrays or comma-separated strings. `having`: aggregates
///   only (`AVG(speed) > 10 AND COUNT(*) >= 5`).
/// - `where`, `geometry`, `trackIds`, `timeExtent`, `timeField`: select
///   the rows as `query-entities` / `query-observations` do.
/// - `layer`: a feature-layer URL: the same request goes to that layer
///   (``LayerStatisticsJob``); `of`, `timeField` and `trackIds` do not apply.
///
/// Everything decidable from the command alone (member types, statistic
/// types, duplicate names, an order-by naming neither a group-by field nor
/// a statistic, having syntax or a field outside an aggregate) is refused
/// at once with an `ok:false` response; what needs the schema (unknown
/// fields, `avg` of a string) fails the job. Answered by ``StoreStatisticsJob``.
public struct StatisticsControlCommand: ControlCommand {
    public static let name = "statistics"
    public static let members: Set<String> = ["of", "statistics", "groupBy", "orderBy", "having", "where", "timeExtent", "timeField",
                                              "geometry", "trackIds", "layer"]

    public let id: JSONValue
    public let request: StatisticsRequest
    public let rows: StoreStatisticsJob.Rows
    public let selection: QueryObservationsRequest
    public let layerURL: String?

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        let statistics = try Self.statistics(members)
        let groupBy = try members.names("groupBy") ?? []
        var orderBy: [StatisticsOrdering] = []
        for term in try members.names("orderBy") ?? [] {
            do throws(StatisticsError) { orderBy.append(try StatisticsOrdering(parsing: term)) } catch {
                throw members.error(StatisticsCommandError.orderBy(error))
            }
        }
        let request = StatisticsRequest(statistics: statistics, groupBy: groupBy, orderBy: orderBy, having: try members.string("having"))
        do throws(StatisticsError) { try request.check() } catch { throw members.error(StatisticsCommandError.request(error)) }
        self.request = request

        var selection = QueryObservationsRequest()
        selection.timeExtent = try members.timeExtent("timeExtent") ?? .unbounded
        selection.timeField = try members.string("timeField")
        if let text = try members.string("where") {
            do throws(WhereClauseError) { try WhereClause.checkSyntax(text) } catch { throw members.error(.whereClause(error)) }
            selection.whereClause = text
        }
        selection.envelope = try members.envelope("geometry")
        selection.trackIDs = try members.trackIDs("trackIds")
        self.selection = selection

        layerURL = try members.string("layer")
        let of = try members.string("of")
        if layerURL != nil {
            guard of == nil, selection.timeField == nil, selection.trackIDs == nil else {
                throw members.error(StatisticsCommandError.storeMembersWithLayer)
            }
            rows = .observations
        } else if let of {
            guard let parsed = StoreStatisticsJob.Rows(rawValue: of) else {
                throw members.error(StatisticsCommandError.unknownRows(of))
            }
            rows = parsed
        } else {
            rows = .entities
        }
    }

    /// The `statistics` member: objects `{"type","field","alias"}` or `TYPE:FIELD[:ALIAS]` strings.
    static func statistics(_ members: CommandMembers) throws(ControlCommandError) -> [EntityStreamStatistics.StatisticDefinition] {
        guard let value = members.value("statistics") else {
            throw members.error(StatisticsCommandError.missingStatistics)
        }
        guard let items = value.arrayValue, !items.isEmpty else {
            throw members.error(StatisticsCommandError.statisticsNotAList)
        }
        guard items.count <= StatisticsLimits.maximumStatistics else {
            throw members.error(.tooMany(member: "statistics", maximum: StatisticsLimits.maximumStatistics))
        }
        var definitions: [EntityStreamStatistics.StatisticDefinition] = []
        for (index, item) in items.enumerated() {
            if let spec = item.stringValue {
                do throws(StatisticsError) { definitions.append(try EntityStreamStatistics.StatisticDefinition(parsing: spec)) } catch {
                    throw members.error(StatisticsCommandError.definition(index: index, error))
                }
                continue
            }
            guard let object = item.objectValue else {
                throw members.error(.elementNotAnObject(member: "statistics", index: index, expected: #"{"type","field","alias"} or a "TYPE:FIELD[:ALIAS]" string"#))
            }
            if let unknown = object.keys.first(where: { !["type", "field", "alias"].contains($0) }) {
                throw members.error(StatisticsCommandError.definitionMember(index: index, unknown: unknown))
            }
            guard let typeName = object["type"]?.stringValue else { throw members.error(StatisticsCommandError.typeNotAString(index: index)) }
            guard let type = StatisticType(restName: typeName) else { throw members.error(StatisticsCommandError.unknownType(index: index, name: typeName)) }
            guard let field = object["field"]?.stringValue?.trimmingSpaces, !field.isEmpty else {
                throw members.error(StatisticsCommandError.missingField(index: index))
            }
            var alias: String?
            switch object["alias"] {
            case nil, .null?: break
            case .string(let text)?:
                guard !text.trimmingSpaces.isEmpty else { throw members.error(StatisticsCommandError.emptyAlias(index: index)) }
                alias = text.trimmingSpaces
            default: throw members.error(StatisticsCommandError.aliasNotAString(index: index))
            }
            definitions.append(EntityStreamStatistics.StatisticDefinition(field: field, type: type, alias: alias))
        }
        return definitions
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        if let layerURL {
            let query = FeatureQuery(whereClause: selection.whereClause, time: selection.timeExtent.isUnbounded ? nil : selection.timeExtent,
                                     geometry: selection.envelope)
            return .job(LayerStatisticsJob(layerURL: layerURL, request: request, query: query))
        }
        return .job(StoreStatisticsJob(request: request, rows: rows, selection: selection))
    }
}
