import EntityStreamCore
import EntityStreamStatistics
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// Everything a ``SimulatorServer`` needs: where to listen, which stream
/// services and feature layers to serve, how to pace them, security, and faults.
public struct SimulatorConfiguration: Sendable {
    /// The address to listen on, exactly (loopback by default; nil, `::`
    /// or `*` for every interface; see `ListenAddress`).
    public var host: String? = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 0
    public var services: [ServiceSpecification] = []
    /// Feature layers served as `…/NAME/MapServer/0` and `…/NAME/FeatureServer/0`.
    public var layers: [LayerSpecification] = []
    /// Live services relayed from a source (`entitystream serve`), with
    /// their store's layers and hot-spot task (see ``LiveServiceSpecification``).
    public var liveServices: [LiveServiceSpecification] = []
    /// Serve `GET /` as a live map page of the first live service.
    public var servesMapPage = false
    /// What happens to a WebSocket subscriber whose queue (``clientQueueBytes``)
    /// is full: the simulator waits for it (each subscriber plays its own
    /// feed, so waiting slows only itself); a relay drops its oldest queued
    /// messages and counts them, or closes it with 1008 — it never waits,
    /// so that one slow subscriber slows neither the others nor the store.
    public var slowClientPolicy = SlowClientPolicy.waitForSpace
    /// Bytes queued per WebSocket subscriber before ``slowClientPolicy`` applies.
    public var clientQueueBytes = 1 << 20
    /// Each subscriber socket's kernel send buffer in bytes (nil: the
    /// environment's or the kernel's; a test seam, see `SocketSendBuffer`).
    package var clientSendBufferBytes: Int?
    /// The most WebSocket subscribers at once (nil: no limit); an upgrade
    /// beyond it is refused with 503. With ``clientQueueBytes`` it bounds
    /// the memory the queues can take.
    public var maximumClients: Int?
    /// Hot-spot geoprocessing services served as `…/NAME/GPServer/911 Calls Hotspot`
    /// (with their result map services `…/NAME/MapServer/jobs/<id>`).
    public var hotSpotServices: [HotSpotServiceSpecification] = []
    /// How long each geoprocessing job stays in each status before the next
    /// (submitted, waiting, executing at least, cancelling), so that clients
    /// can watch them; 0: as fast as the work goes (clamped to a day).
    public var jobDelayMilliseconds: Int64 = 0
    /// How long each job executes at least (a cancel cuts it short); nil:
    /// ``jobDelayMilliseconds``.
    public var jobExecutionMilliseconds: Int64?
    /// The layers' `maxRecordCount`: the most features one query answer holds.
    public var maxRecordCount = 2000
    /// A layer file larger than this many bytes, in a format that streams
    /// (CSV, Esri JSON lines, GeoJSON sequences, recordings), is served
    /// without loading it (``StreamedFileLayer``: every query reads the
    /// file, in bounded memory); smaller files, and one-document formats,
    /// are loaded whole (`--stream-layers-over BYTES`).
    public var layerStreamingThreshold = 64 << 20
    /// Whether the layers support `resultOffset`/`resultRecordCount` (false
    /// makes them answer as old servers do, for testing clients' fallbacks).
    public var layerPagination = true
    /// Answers statistics queries on the layers (`outStatistics`,
    /// `returnDistinctValues`): by default the project's one statistics
    /// engine; nil refuses them (400) and the layers then say
    /// `supportsStatistics: false`.
    public var statisticsEngine: (any FeatureStatisticsEngine)? = TableStatisticsEngine()
    /// Each fleet service NAME also serves its "Store Latest" archive as the
    /// layer `NAME_Latest` (`…/NAME_Latest/FeatureServer/0`) and names it in
    /// its description's `keepLatestArchive` (false: `--no-archive`).
    public var fleetArchive = true
    /// Each fleet service NAME also serves its static vehicle table as
    /// `NAME_Vehicles` and names it in `relatedFeatures` with join field
    /// `vehiclename` (false: `--no-related`).
    public var fleetRelated = true
    /// Anchors the fleets' timeline (the server's start) and tells the
    /// archive layers what "now" is; subscribers pace by the system clock.
    public var clock: any EntityClock = SystemClock()
    /// Track-id field for sources without one (plain feature files).
    public var trackIDField: String?
    public var pacing = SimulatorPacing()
    /// Require this token on the description and the socket.
    public var token: String?
    /// Cross-origin access (ArcGIS Server's default: every origin).
    public var cors = CORSPolicy()
    /// Serve https/wss with these files.
    public var tls: TLSFiles?
    public var faults = FaultPlan()
    /// Where announcements go (stderr in the command line).
    public var log: @Sendable (String) -> Void = { _ in }

    public init() {}

    /// Checks every time value against ``TimeBounds`` (the bounds
    /// `entitystream` applies too), so that no schedule can overflow.
    /// Throws ``SimulatorError`` naming the value.
    public func validate() throws(SimulatorError) {
        if TimeBounds.problem(speed: pacing.speed) != nil { throw .speed(pacing.speed) }
        if TimeBounds.problem(milliseconds: pacing.intervalMilliseconds) != nil { throw .interval(pacing.intervalMilliseconds) }
        if let stall = faults.stallMilliseconds, TimeBounds.problem(milliseconds: stall) != nil { throw .stall(stall) }
        if clientQueueBytes < 1024 || clientQueueBytes > 1 << 30 {
            throw .clientQueue(bytes: clientQueueBytes)
        }
        if let maximumClients, maximumClients < 1 { throw .maximumClients(maximumClients) }
        if let seconds = faults.expireTokenAfterSeconds, seconds <= 0 || TimeBounds.problem(seconds: seconds) != nil {
            throw .tokenExpiry(seconds: seconds)
        }
    }
}
