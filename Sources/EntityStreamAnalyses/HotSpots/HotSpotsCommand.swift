import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere
import EntityStream

/// `hotspots`: where do the retained observations cluster? A Getis-Ord Gi*
/// hot-spot analysis of the store, run as a geoprocessing job.
///
/// ```json
/// {"id":4,"command":"hotspots","where":"speed = 0","timeExtent":{"start":"2026-11-23T08:00:00Z","end":null},
///  "cellSize":500,"valueField":null,"distanceBand":null,"fdr":true,"force":false,"aggregation":"fishnet"}
/// ```
///
/// Every member is optional. The observations are those of one snapshot
/// matching `timeExtent` (on `timeField`: the service's time field by
/// default, or `received`), `where`, `geometry` (an envelope) and `trackIds`
/// — every retained observation, not only each entity's latest. Without
/// `valueField` they are incidents, counted by `aggregation`: `fishnet`
/// (the default, square cells of `cellSize`, chosen when null; each result
/// is a cell polygon with `JOIN_COUNT`) or `collect` (identical locations,
/// `ICOUNT`). With `valueField` (a numeric field) each observation is a
/// weighted point. `distanceBand` null chooses the band as Optimized Hot
/// Spot Analysis does; `fdr` (default true) corrects the bins for the False
/// Discovery Rate; `force` analyses below ArcGIS's minimums (30 features,
/// 60 incidents). Distances are measured in `processSR` (as ArcGIS's
/// processing spatial reference; default the data's own, geographic data —
/// WGS84, the live fleet — in metres): `cellSize` and `distanceBand` are in
/// its unit. Results are written in `outSR` (default the data's own). Both
/// take a WKID, `{"wkid":…}` or `{"wkt":…}`. The answer is the job's status
/// lines (``GPJobReporter``), one `result` line per feature, then a summary
/// (``LocalHotSpotJob``).
///
/// With `"task":"https://…/GPServer/<task>"` a remote geoprocessing service
/// runs it instead (``RemoteHotSpotJob``): `query` is sent as its `Query`
/// parameter, or built from `timeExtent` (both ends, strict, UTC) as the
/// sample builds it; `outSR` (default 102100) goes as `env:outSR`,
/// `processSR` as `env:processSR`. The local members do not apply to it.
public struct HotSpotsCommand: ControlCommand {
    public static let name = "hotspots"
    public static let members: Set<String> = ["where", "timeExtent", "timeField", "geometry", "trackIds", "valueField", "aggregation",
                                              "cellSize", "distanceBand", "fdr", "force", "task", "query", "outSR", "processSR"]
    /// The largest cell size or band accepted (in the data's units).
    public static let maximumDistance = 1e12

    public let id: JSONValue
    public let job: any AnalysisJob

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        let outSR = try Self.spatialReference("outSR", in: members)
        let processSR = try Self.spatialReference("processSR", in: members)
        if let task = try members.string("task") {
            let local = ["where", "timeField", "geometry", "trackIds", "valueField", "aggregation", "cellSize", "distanceBand", "fdr", "force"]
            if let used = local.first(where: { members.value($0) != nil }) {
                throw members.error(HotSpotsCommandError.localMemberWithTask(used))
            }
            var query = try members.string("query")
            if let extent = try members.timeExtent("timeExtent") {
                guard query == nil else { throw members.error(.conflicting("query", "timeExtent")) }
                guard let start = extent.start, let end = extent.end else {
                    throw members.error(HotSpotsCommandError.taskTimeExtentOpen)
                }
                do throws(GPRESTError) { query = try GPDateRangeQuery.make(from: start, to: end) } catch {
                    throw members.error(HotSpotsCommandError.taskTimeExtent(error))
                }
            }
            job = RemoteHotSpotJob(taskURL: task, query: query, outSR: outSR?.code ?? 102100, processSR: processSR?.code)
            return
        }
        for remote in ["query"] where members.value(remote) != nil {
            throw members.error(HotSpotsCommandError.taskMemberWithoutTask(remote))
        }
        let request = try QueryObservationsRequest(selectionFrom: members)
        let valueField = try members.string("valueField")
        var options = HotSpotOptions()
        let cellSize = try members.number("cellSize", in: 0...Self.maximumDistance)
        if cellSize == 0 { throw members.error(HotSpotsCommandError.notAPositiveDistance(member: "cellSize")) }
        switch try members.string("aggregation") {
        case nil, "fishnet":
            options.aggregation = .fishnet(cellSize: cellSize)
        case "collect":
            guard cellSize == nil else { throw members.error(HotSpotsCommandError.cellSizeWithCollect) }
            options.aggregation = .collectEvents
        case let other?:
            throw members.error(HotSpotsCommandError.unknownAggregation(other))
        }
        if valueField != nil, members.value("aggregation") != nil || cellSize != nil {
            throw members.error(HotSpotsCommandError.weightedWithIncidentMembers)
        }
        options.distanceBand = try members.number("distanceBand", in: 0...Self.maximumDistance)
        if options.distanceBand == 0 { throw members.error(HotSpotsCommandError.notAPositiveDistance(member: "distanceBand")) }
        options.fdr = try members.bool("fdr") ?? true
        options.force = try members.bool("force") ?? false
        job = LocalHotSpotJob(source: .store(request), valueField: valueField, options: options, processSR: processSR?.code, outSR: outSR?.code)
    }

    /// Member `name` as a spatial reference PROJ knows (nil when absent or null).
    private static func spatialReference(_ name: String, in members: CommandMembers) throws(ControlCommandError) -> SpatialReference? {
        do throws(ProjectionError) { return try SpatialReference.parse(json: members.value(name) ?? .null) } catch { throw members.error(.spatialReference(member: name, error)) }
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        .job(job)
    }
}
