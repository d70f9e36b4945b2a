import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamStatistics
import EntityStreamFeatures

/// `entitystream statistics LAYER_URL|FILE --stat TYPE:FIELD[:ALIAS] …`:
/// the "Query table statistics group and sort" sample — grouped statistics
/// of a remote ArcGIS layer (computed by the server, groups paged) or of a
/// local file (computed here by the same engine the simulator's layers
/// use), one JSON line per group record in the requested order, then a
/// summary; or, with `--format csv`, a CSV table.
struct StatisticsSubcommand: RunnableCommand {
    var source = AnalysisSourceOptions()
    var specs: [String] = []
    var groupBy: [String] = []
    var orderBy: [String] = []
    var having: String?
    var query = FeatureQuery()
    var request = StatisticsRequest(statistics: [])

    static let help = """
    Usage: entitystream statistics LAYER_URL|FILE --stat TYPE:FIELD[:ALIAS] [options]

    Grouped statistics of a feature layer or table (…/MapServer/0,
    …/FeatureServer/0; computed by the server) or of a local file (CSV, Esri
    JSON, GeoJSON, a recording; computed here with the same engine as the
    simulator's layers). Prints one JSON line per group record, in the
    requested order — "group":{field: value, …} then "statistics":{name: value, …}
    (counts as integers, dates as epoch milliseconds) — then a summary line;
    with --format csv, a CSV table instead (header: the group-by fields,
    then the statistic names; dates as ISO-8601), with --format geojson one
    Feature per record (no geometry); the other lines go to stderr.

    Semantics (ArcGIS / SQL): count counts non-null values (count:* counts
    rows); sum, avg, min and max ignore nulls; stddev and var are the sample
    forms (n − 1), null for a single value; a null group-by value forms its
    own group; min and max also work on strings and dates. Without an alias
    a statistic is named AVG_field, COUNT_field, …

    Example (the sample's own query):
      entitystream statistics https://services.arcgis.com/…/Counties_Obesity_Inactivity_Diabetes_2013/FeatureServer/0 \\
          --stat avg:Diabetes_Percent --stat count:Diabetes_Percent --stat stddev:Diabetes_Percent \\
          --group-by State --order-by "State ASC"

    Options:
      Statistics:
        --stat TYPE:FIELD[:ALIAS]   a statistic (repeatable): TYPE is count, sum, min, max,
                                    avg, stddev or var; FIELD a field or * (count only)
        --group-by F[,F…]           group-by fields (repeatable)
        --order-by "NAME [ASC|DESC]"
                                    order of the records (repeatable, or a comma list): group-by
                                    fields or statistic names; then the group-by fields ascending
        --having SQL                keep groups whose aggregates match, e.g. "COUNT(*) >= 5 AND AVG(x) > 10"
                                    (a layer gets it as `having`; one that does not advertise
                                    supportsHavingClause has it applied here, and the summary says so)
      Rows:
        --where SQL                 where clause applied before grouping
        --time START,END            time extent (either end may be empty)
        --geometry xmin,ymin,xmax,ymax[,SR]
                                    only features inside this envelope (SR: its spatial reference)
    \(AnalysisSourceOptions.help)
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--stat": specs.append(try arguments.value(for: word))
            case "--group-by": groupBy.append(try arguments.value(for: word))
            case "--order-by": orderBy.append(try arguments.value(for: word))
            case "--having":
                guard having == nil else { throw UsageError.repeated(flag: word, advice: "combine the conditions with AND") }
                having = try arguments.value(for: word)
            case "--where": query.whereClause = try arguments.whereClause(for: word)
            case "--time": query.time = try arguments.timeExtent(for: word)
            case "--geometry": query.geometry = try arguments.envelope(for: word)
            default:
                if try source.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") && word != "-" { throw arguments.unknownOption(word, command: "statistics") }
                try source.take(word, command: "statistics")
            }
        }
        guard !source.source.isEmpty else { throw UsageError.missingArgument("the layer URL or file", command: "statistics") }
        try source.checkRemote(command: "statistics")
        guard !specs.isEmpty else {
            throw UsageError.missingArgument("a --stat TYPE:FIELD[:ALIAS] (for example --stat avg:Diabetes_Percent)", command: "statistics")
        }
        do {
            request = try StatisticsRequest(statisticSpecs: specs, groupBy: groupBy, orderBy: orderBy, having: having)
            try request.check()
        } catch {
            throw UsageError.invalidArgument(command: "statistics", error: error)
        }
    }

    func run() async throws -> Int32 {
        let job: any AnalysisJob = source.isRemote
            ? LayerStatisticsJob(layerURL: source.source, request: request, query: query)
            : FileStatisticsJob(path: source.source, load: source.load, request: request, query: query)
        var analysis = OneShotAnalysis(format: source.format, remote: source.remote)
        analysis.showsProgress = source.progress
        return await analysis.run("statistics", job: job)
    }
}
