import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel
import EntityStreamFeatures

/// `entitystream hotspots FILE|GP_TASK_URL …`: the "Analyze hotspots"
/// sample — a Getis-Ord Gi* hot-spot analysis of a local file by the
/// project's engine, or a job of a remote ArcGIS geoprocessing task —
/// printed as the job's status lines, one line per feature, then a summary.
struct HotSpotsSubcommand: RunnableCommand {
    var source = AnalysisSourceOptions()
    // Local.
    var valueField: String?
    var cellSize: Double?
    var collect = false
    var distanceBand: Double?
    var whereClause: String?
    var timeExtent: TimeExtent?
    var fdr = true
    var force = false
    // Both.
    var outSR: SpatialReference?
    var processSR: SpatialReference?
    // Remote.
    var pollInterval: Int?
    private var from: Int64?
    private var to: Int64?
    private var localFlags: [String] = []
    private var remoteFlags: [String] = []

    static let help = """
    Usage: entitystream hotspots FILE [options]
           entitystream hotspots GP_TASK_URL [--time START,END | --where SQL] [options]

    Finds statistically significant hot and cold spots (Getis-Ord Gi*, as ArcGIS's
    Hot Spot Analysis and Optimized Hot Spot Analysis compute them) and prints the
    job's status lines (jobStatus esriJobSubmitted … esriJobSucceeded), one line per
    feature (the point or fishnet cell, SOURCE_ID, JOIN_COUNT/ICOUNT or the value,
    GiZScore, GiPValue, NNeighbors, Gi_Bin -3…3), then a summary line (n, the
    distance band and why, FDR, features per bin, what was excluded).

    A FILE (CSV, Esri JSON, GeoJSON, a recording) is analysed here. Without
    --value-field its points are incidents, counted in fishnet cells (the
    default) or at identical locations (--collect). Distances are measured in
    the processing spatial reference (--process-sr, as ArcGIS's processSR):
    by default the data's own (projected data in its linear unit; WGS84 and
    Web Mercator in metres on the ellipsoid); results are written in --out-sr
    (default the data's own). In --where, DATE names the time field (as the
    sample's query).

    A GP_TASK_URL (…/GPServer/<task>) runs as a job on that service: submitJob
    (Query from --where, or the sample's date query from --time; env:outSR from
    --out-sr, default 102100 as the sample's map; env:processSR from
    --process-sr), polling with back-off, the job's messages, then
    results/Output_Features. Ctrl-C cancels the job on the server.

    Examples:
      entitystream hotspots portland_burglary.csv --columns x=x_coordina,y=y_coordina,time=occ_date \\
          --in-sr 2913 --time 2015-01-01,2015-12-31 --cell-size 1500
      entitystream hotspots "https://…/911CallsHotspot/GPServer/911%20Calls%20Hotspot" \\
          --time 1998-01-01,1998-05-31

    Options:
      --where SQL                 which records (ArcGIS SQL; "DATE" is the time field); for a task,
                                  its Query parameter
      --time START,END            records in this time extent (inclusive; either end may be empty);
                                  for a task, the sample's Query ("DATE" > date 'START' AND
                                  "DATE" < date 'END', both ends needed, UTC)
      --out-sr SR                 the results' spatial reference (a WKID, EPSG:n, ESRI:n or WKT;
                                  default: the data's own; for a task 102100)
      --process-sr SR             the spatial reference distances are measured in (default: the data's)
    Options for a FILE:
      --columns x=C,y=C[,time=C]  the coordinate and time columns of a CSV
      --in-sr SR                  the coordinates' spatial reference (default: the file's, else 4326)
      --value-field F             analyse weighted points: the numeric field F
      --cell-size D               fishnet cell size (default: chosen from the incidents' spacing)
      --collect                   count incidents at identical locations (ICOUNT) instead of cells
      --distance-band D           the band (default: chosen as Optimized Hot Spot Analysis does)
      --no-fdr                    bins without False Discovery Rate correction
      --force                     analyse below the minimums (30 features, 60 incidents)
    Options for a GP_TASK_URL:
      --poll-interval MS          first polling interval (default 250; grows ×1.5 up to 5000)
    \(AnalysisSourceOptions.help)
      -h, --help                  show this help
    """

    /// Deprecated spellings still read: the old column, reference and date flags.
    static let aliases = ["--wkid": "--in-sr", "--query": "--where"]

    init(arguments: inout ArgumentList) throws {
        arguments.aliases = Self.aliases
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--x", "--y", "--time-field":
                let key = word == "--time-field" ? "time" : String(word.dropFirst(2))
                Deprecation.warn(program: "entitystream", "\(word) C is deprecated; use --columns \(key)=C")
                let column = try arguments.nonEmptyValue(for: word)
                switch key {
                case "x": source.load.mapping.x = column
                case "y": source.load.mapping.y = column
                default:
                    source.load.mapping.time = column
                    source.load.mapping.noTime = false
                }
                localFlags.append(word)
            case "--from", "--to":
                Deprecation.warn(program: "entitystream", "--from and --to are deprecated; use --time START,END")
                let instant = try arguments.instant(for: word)
                if word == "--from" { from = instant } else { to = instant }
            case "--value-field": valueField = try local(word, arguments.value(for: word))
            case "--cell-size": cellSize = try local(word, arguments.number(for: word, minimum: 0, inclusive: false, maximum: HotSpotsCommand.maximumDistance))
            case "--collect": collect = try local(word, true)
            case "--distance-band":
                distanceBand = try local(word, arguments.number(for: word, minimum: 0, inclusive: false, maximum: HotSpotsCommand.maximumDistance))
            case "--where": whereClause = try arguments.whereClause(for: word)
            case "--time": timeExtent = try arguments.timeExtent(for: word)
            case "--no-fdr": fdr = try local(word, false)
            case "--force": force = try local(word, true)
            case "--out-sr": outSR = try arguments.spatialReference(for: word)
            case "--process-sr": processSR = try arguments.spatialReference(for: word)
            case "--poll-interval": pollInterval = try remote(word, arguments.integer(for: word, minimum: 1, maximum: 3_600_000))
            default:
                if try source.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") && word != "-" { throw arguments.unknownOption(word, command: "hotspots") }
                try source.take(word, command: "hotspots")
            }
        }
        guard !source.source.isEmpty else { throw UsageError.missingArgument("the file or the geoprocessing task URL", command: "hotspots") }
        if from != nil || to != nil {
            guard timeExtent == nil else { throw UsageError.conflicting(["--time", "--from/--to"], command: "hotspots") }
            do { timeExtent = try TimeExtent(start: from, end: to) } catch { throw UsageError.invalidValue(flag: "--from/--to", error: error) }
        }
        if source.isRemote {
            if let flag = localFlags.first {
                throw UsageError.notApplicable([flag], command: "hotspots", scope: "a local file, not to a geoprocessing task")
            }
            try source.checkRemote(command: "hotspots")
            if timeExtent != nil, whereClause != nil {
                throw UsageError.conflicting(["--time", "--where"], command: "hotspots", reason: "for a task each makes its Query")
            }
        } else {
            if let flag = remoteFlags.first {
                throw UsageError.notApplicable([flag], command: "hotspots", scope: "a geoprocessing task URL, not to a file")
            }
            if (source.load.mapping.x == nil) != (source.load.mapping.y == nil) { throw UsageError.together(["--columns x=", "y="], command: "hotspots") }
            if valueField != nil, cellSize != nil || collect {
                throw UsageError.conflicting(["--value-field", collect ? "--collect" : "--cell-size"], command: "hotspots",
                                             reason: "--value-field analyses weighted points; --cell-size and --collect apply to incidents")
            }
            if collect, cellSize != nil {
                throw UsageError.conflicting(["--collect", "--cell-size"], command: "hotspots", reason: "--cell-size applies to fishnet cells")
            }
        }
        try ArgumentList.checkFormat(source.format, outSR: outSR)
    }

    /// Notes a flag that only a local analysis takes.
    private mutating func local<T>(_ flag: String, _ value: T) throws -> T {
        localFlags.append(flag)
        return value
    }

    /// Notes a flag that only a remote task takes.
    private mutating func remote<T>(_ flag: String, _ value: T) throws -> T {
        remoteFlags.append(flag)
        return value
    }

    /// The job this command line asks for.
    func job() throws -> any AnalysisJob {
        if source.isRemote {
            var policy = GPJobPollPolicy()
            if let pollInterval { policy = GPJobPollPolicy(initialInterval: Int64(pollInterval)) }
            var query = whereClause
            if let timeExtent {
                guard let start = timeExtent.start, let end = timeExtent.end else {
                    throw UsageError.requires("--time", needs: "both ends for a task", command: "hotspots", reason: "the sample's query is strict at both")
                }
                do { query = try GPDateRangeQuery.make(from: start, to: end) } catch {
                    throw UsageError.invalidArgument(command: "hotspots", error: error)
                }
            }
            return RemoteHotSpotJob(taskURL: source.source, query: query, outSR: outSR?.code ?? 102100, processSR: processSR?.code, policy: policy)
        }
        let options = HotSpotOptions(aggregation: collect ? .collectEvents : .fishnet(cellSize: cellSize), distanceBand: distanceBand, fdr: fdr, force: force)
        return LocalHotSpotJob(source: .file(path: source.source, load: source.load, whereClause: whereClause, timeExtent: timeExtent),
                               valueField: valueField, options: options, processSR: processSR?.code, outSR: outSR?.code)
    }

    func run() async throws -> Int32 {
        let job = try job()
        var session = OneShotAnalysis(format: source.format, remote: source.remote)
        session.keepsProgress = { ($0 as? GPJobProgress)?.isStatusLine == true }
        session.showsProgress = source.progress
        session.coordinates = outSR ?? .wgs84
        return await session.run("hotspots", job: job)
    }
}
