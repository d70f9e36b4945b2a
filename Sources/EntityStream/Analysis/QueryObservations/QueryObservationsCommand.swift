import EntityStreamCore

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
public struct QueryObservationsCommand: ControlCommand {
    public static let name = "query-observations"
    public static let members: Set<String> = ["timeExtent", "timeField", "where", "geometry", "trackIds", "outFields", "orderBy",
                                              "limit", "returnCountOnly"]
    public static let maximumLimit = 10_000_000

    public let id: JSONValue
    public let request: QueryObservationsRequest

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        var request = QueryObservationsRequest()
        request.timeExtent = try members.timeExtent("timeExtent") ?? .unbounded
        request.timeField = try members.string("timeField")
        if let text = try members.string("where") {
            do { try WhereClause.checkSyntax(text) } catch { throw members.error("where: \(error)") }
            request.whereClause = text
        }
        request.envelope = try members.envelope("geometry")
        request.trackIDs = try members.trackIDs("trackIds")
        if let names = try members.names("outFields"), names != ["*"] { request.outFields = names }
        request.orderBy = try members.string("orderBy")
        request.limit = try members.integer("limit", in: 1...Self.maximumLimit)
        request.countOnly = try members.bool("returnCountOnly") ?? false
        self.request = request
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        .job(QueryObservationsJob(request: request))
    }
}
