import EntityStream
import EntityStreamCore
import HotSpots

/// `entitystream hotspots FILE|GP_TASK_URL …`: the "Analyze hotspots"
/// sample — a Getis-Ord Gi* hot-spot analysis of a local file by the
/// project's engine, or a job of a remote ArcGIS geoprocessing task —
/// printed as the job's status lines, one line per feature, then a summary.
struct HotSpotsSubcommand {
    var source = AnalysisSourceOptions()
    var csv = false
    // Local.
    var x: String?
    var y: String?
    var wkid: Int?
    var timeField: String?
    var valueField: String?
    var cellSize: Double?
    var collect = false
    var distanceBand: Double?
    var whereClause: String?
    var timeExtent: TimeExtent?
    var fdr = true
    var force = false
    // Remote.
    var from: Int64?
    var to: Int64?
    var query: String?
    var outSR: Int?
    var pollInterval: Int?
    private var localFlags: [String] = []
    private var remoteFlags: [String] = []

    static let help = """
    Usage: entitystream hotspots FILE [options]
           entitystream hotspots GP_TASK_URL [--from DATE --to DATE | --query SQL] [options]

    Finds statistically significant hot and cold spots (Getis-Ord Gi*, as ArcGIS's
    Hot Spot Analysis and Optimized Hot Spot Analysis compute them) and prints the
    job's status lines (jobStatus esriJobSubmitted … esriJobSucceeded), one line per
    feature (the point or fishnet cell, SOURCE_ID, JOIN_COUNT/ICOUNT or the value,
    GiZScore, GiPValue, NNeighbors, Gi_Bin -3…3), then a summary line (n, the
    distance band and why, FDR, features per bin, what was excluded).

    A FILE (CSV, Esri JSON, GeoJSON, a recording) is analysed here. Without
    --value-field its points are incidents, counted in fishnet cells (the
    default) or at identical locations (--collect). Projected data is measured
    in its own unit (say which with --wkid); WGS84 in metres; Web Mercator is
    read as WGS84. In --where, DATE names the time field (as the sample's query).

    A GP_TASK_URL (…/GPServer/<task>) runs as a job on that service: submitJob,
    polling with back-off, the job's messages, then results/Output_Features.
    Ctrl-C cancels the job on the server.

    Examples:
      entitystream hotspots portland_burglary.csv --x x_coordina --y y_coordina --wkid 2913 \\
          --time-field occ_date --time 2015-01-01,2015-12-31 --cell-size 1500
      entitystream hotspots "https://…/911CallsHotspot/GPServer/911%20Calls%20Hotspot" \\
          --from 1998-01-01 --to 1998-05-31

    Options for a FILE:
      --x C --y C                 the coordinate columns of a CSV
      --wkid N                    the coordinates' spatial reference (default: the file's, else 4326)
      --time-field C              the time column (for --time and DATE)
      --value-field F             analyse weighted points: the numeric field F
      --cell-size D               fishnet cell size (default: chosen from the incidents' spacing)
      --collect                   count incidents at identical locations (ICOUNT) instead of cells
      --distance-band D           the band (default: chosen as Optimized Hot Spot Analysis does)
      --where SQL                 which records (ArcGIS SQL; "DATE" is the time field)
      --time START,END            records in this time extent (inclusive; either end may be empty)
      --no-fdr                    bins without False Discovery Rate correction
      --force                     analyse below the minimums (30 features, 60 incidents)
    Options for a GP_TASK_URL:
      --from DATE --to DATE       the sample's Query: ("DATE" > date 'FROM' AND "DATE" < date 'TO'), UTC
      --query SQL                 any Query parameter instead
      --out-sr WKID               env:outSR and env:processSR (default 102100, the sample's map)
      --poll-interval MS          first polling interval (default 250; grows ×1.5 up to 5000)
    \(AnalysisSourceOptions.help)
        --format csv                a CSV table of the features on stdout (other lines on stderr)
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        while let word = try arguments.next() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--format":
                let text = try arguments.value(for: word)
                if text == "csv" {
                    csv = true
                } else {
                    guard let format = OutputFormat(rawValue: text) else { throw UsageError("--format expects esri, geojson or csv, not '\(text)'") }
                    source.format = format
                }
            case "--x": x = try local(word, arguments.value(for: word))
            case "--y": y = try local(word, arguments.value(for: word))
            case "--wkid": wkid = try local(word, arguments.integer(for: word, minimum: 1, maximum: Int(Int32.max)))
            case "--time-field": timeField = try local(word, arguments.value(for: word))
            case "--value-field": valueField = try local(word, arguments.value(for: word))
            case "--cell-size": cellSize = try local(word, arguments.number(for: word, minimum: 0, inclusive: false, maximum: HotSpotsCommand.maximumDistance))
            case "--collect": collect = try local(word, true)
            case "--distance-band":
                distanceBand = try local(word, arguments.number(for: word, minimum: 0, inclusive: false, maximum: HotSpotsCommand.maximumDistance))
            case "--where":
                let text = try arguments.value(for: word)
                do { try WhereClause.checkSyntax(text) } catch { throw UsageError("--where: \(error)") }
                whereClause = try local(word, text)
            case "--time":
                let text = try arguments.value(for: word)
                do { timeExtent = try local(word, TimeExtent.parseArgument(text)) } catch let error as UsageError { throw error } catch { throw UsageError("--time: \(error)") }
            case "--no-fdr": fdr = try local(word, false)
            case "--force": force = try local(word, true)
            case "--from": from = try remote(word, Self.instant(word, arguments.value(for: word)))
            case "--to": to = try remote(word, Self.instant(word, arguments.value(for: word)))
            case "--query": query = try remote(word, arguments.value(for: word))
            case "--out-sr": outSR = try remote(word, arguments.integer(for: word, minimum: 1, maximum: 999_999))
            case "--poll-interval": pollInterval = try remote(word, arguments.integer(for: word, minimum: 1, maximum: 3_600_000))
            default:
                if try source.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") && word != "-" { throw UsageError("hotspots: unknown option '\(word)' (see entitystream hotspots --help)") }
                try source.take(word, command: "hotspots")
            }
        }
        guard !source.source.isEmpty else { throw UsageError("hotspots: missing the file or the geoprocessing task URL") }
        if source.isRemote {
            if let flag = localFlags.first { throw UsageError("hotspots: \(flag) applies to a local file, not to a geoprocessing task") }
            if source.load != FeatureLoadOptions() { throw UsageError("hotspots: --columns and --file-format apply to a local file, not to a geoprocessing task") }
            if (from == nil) != (to == nil) { throw UsageError("hotspots: --from and --to go together (the sample's query needs both dates)") }
            if query != nil, from != nil { throw UsageError("hotspots: give --from/--to or --query, not both") }
            if let from, let to {
                do { query = try GPDateRangeQuery.make(from: from, to: to) } catch { throw UsageError("hotspots: \(error.description)") }
            }
        } else {
            if let flag = remoteFlags.first { throw UsageError("hotspots: \(flag) applies to a geoprocessing task URL, not to a file") }
            if (x == nil) != (y == nil) { throw UsageError("hotspots: --x and --y go together") }
            if valueField != nil, cellSize != nil || collect {
                throw UsageError("hotspots: --value-field analyses weighted points; --cell-size and --collect apply to incidents")
            }
            if collect, cellSize != nil { throw UsageError("hotspots: --cell-size applies to fishnet cells, not to --collect") }
            if let x, let y {
                source.load.mapping.x = x
                source.load.mapping.y = y
            }
            if let wkid { source.load.mapping.wkid = wkid }
            if let timeField {
                source.load.mapping.time = timeField
                source.load.mapping.noTime = false
            }
        }
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

    private static func instant(_ flag: String, _ text: String) throws -> Int64 {
        do { return try Instant.parse(text) } catch { throw UsageError("\(flag): \(error)") }
    }

    /// The job this command line asks for.
    var job: any AnalysisJob {
        if source.isRemote {
            var policy = GPJobPollPolicy()
            if let pollInterval { policy = GPJobPollPolicy(initialInterval: Int64(pollInterval)) }
            return RemoteHotSpotJob(taskURL: source.source, query: query, outSR: outSR ?? 102100, policy: policy)
        }
        let options = HotSpotOptions(aggregation: collect ? .collectEvents : .fishnet(cellSize: cellSize), distanceBand: distanceBand, fdr: fdr, force: force)
        return LocalHotSpotJob(source: .file(path: source.source, load: source.load, whereClause: whereClause, timeExtent: timeExtent),
                               valueField: valueField, options: options)
    }

    func run() async throws -> Int32 {
        var session = OneShotAnalysis(format: source.format, remote: source.remote)
        session.keepsProgress = { GPJobReporter.isStatusLine($0) }
        session.csv = csv
        return await session.run("hotspots", job: job)
    }
}
