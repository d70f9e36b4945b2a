import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStream

/// `query-observations`: the time-extent query over the track history.
///
/// ```json
/// {"id":1,"command":"query-observations","timeExtent":{"start":"2026-11-23T08:00:00Z","end":"2026-11-23T09:00:00Z"},
///  "where":"speed > 20","geometry":"-112,40.5,-111.8,40.7","trackIds":["TRUCK 3"],"outFields":"speed,heading",
///  "orderBy":"time DESC","limit":1000}
/// ```
///
/// Every member is optional. `timeExtent` is `{"start":…,"end":…}`,
/// `[start, end]` or `"start,end"` (ISO-8601, UTC unless an offset is given,
/// or epoch ms; null for an open end; both ends inclusive). `timeField` is
/// `received` or a date/number field; by default the service's start time
/// field, else the receive time. `returnCountOnly` answers only the count.
/// Answers from what the store holds now: purged observations are gone.
///
/// With `"layer":"https://…/MapServer/0"` the same query goes to that
/// remote feature layer instead (``LayerQueryJob``): `timeExtent`, `where`,
/// `geometry`, `outFields`, `orderBy` (field names), `limit` and
/// `returnCountOnly` apply; `timeField` and `trackIds` do not.
public struct QueryObservationsCommand: ControlCommand {
    public static let name = "query-observations"
    public static let members: Set<String> = ["timeExtent", "timeField", "where", "geometry", "trackIds", "outFields", "orderBy",
                                              "limit", "returnCountOnly", "layer"]
    public static let maximumLimit = 10_000_000

    public let id: JSONValue
    public let request: QueryObservationsRequest
    /// The remote layer to query instead of the store, with its query.
    public let layer: (url: String, query: FeatureQuery)?

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        var request = try QueryObservationsRequest(selectionFrom: members)
        if let names = try members.names("outFields"), names != ["*"] { request.outFields = names }
        request.orderBy = try members.string("orderBy")
        request.limit = try members.integer("limit", in: 1...Self.maximumLimit)
        request.countOnly = try members.bool("returnCountOnly") ?? false
        self.request = request
        if let url = try members.string("layer") {
            guard request.timeField == nil, request.trackIDs == nil else {
                throw members.error(QueryCommandError.storeMembersWithLayer)
            }
            layer = (url, try Self.layerQuery(request, members: members))
        } else {
            layer = nil
        }
    }

    /// The REST query a layer gets for `request`.
    static func layerQuery(_ request: QueryObservationsRequest, members: CommandMembers) throws(ControlCommandError) -> FeatureQuery {
        var query = FeatureQuery(whereClause: request.whereClause, time: request.timeExtent.isUnbounded ? nil : request.timeExtent,
                                 geometry: request.envelope, outFields: request.outFields, returnCountOnly: request.countOnly)
        query.resultRecordCount = request.limit
        if let orderBy = request.orderBy {
            do throws(FeatureQueryError) { query.orderBy = try OrderByField.parseList(orderBy, parameter: "orderBy") } catch {
                throw members.error(QueryCommandError.orderBy(error))
            }
        }
        return query
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        if let layer { return .job(LayerQueryJob(layerURL: layer.url, query: layer.query)) }
        return .job(QueryObservationsJob(request: request))
    }
}

extension QueryObservationsRequest {
    /// The store rows a command selects: its `timeExtent`, `timeField`,
    /// `where` (syntax checked here), `geometry` and `trackIds` members, as
    /// `query-observations` and `hotspots` read them.
    init(selectionFrom members: CommandMembers) throws(ControlCommandError) {
        self.init()
        timeExtent = try members.timeExtent("timeExtent") ?? .unbounded
        timeField = try members.string("timeField")
        if let text = try members.string("where") {
            do throws(WhereClauseError) { try WhereClause.checkSyntax(text) } catch { throw members.error(.whereClause(error)) }
            whereClause = text
        }
        envelope = try members.envelope("geometry")
        trackIDs = try members.trackIDs("trackIds")
    }
}
