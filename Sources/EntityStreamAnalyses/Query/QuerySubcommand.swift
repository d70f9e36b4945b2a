import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamProjection
import EntityStreamFeatures
import EntityStreamModel

/// `entitystream query LAYER_URL|FILE …`: the "Query with time extent"
/// sample — features of a remote ArcGIS layer (paged as ArcGIS clients
/// page) or of a local file, one JSON line each, then a summary line.
struct QuerySubcommand: RunnableCommand {
    var source = AnalysisSourceOptions()
    var query = FeatureQuery()

    static let help = """
    Usage: entitystream query LAYER_URL|FILE [options]

    Queries a feature layer or table (…/MapServer/0, …/FeatureServer/0) or a
    local file (CSV, Esri JSON, GeoJSON, a recording) and prints one JSON line
    per feature, then a summary line. Time extents are inclusive at both ends
    (ArcGIS's esriTimeRelationOverlaps); dates are ISO-8601 (UTC unless an
    offset is given) or epoch milliseconds; either end may be empty (open).

    Example (the sample's own query):
      entitystream query https://sampleserver6.arcgisonline.com/arcgis/rest/services/Hurricanes/MapServer/0 \\
          --time 2000-09-01,2000-09-22 --out-fields '*'

    Options:
      Query:
        --time START,END            time extent (either end may be empty)
        --where SQL                 where clause
        --out-fields a,b|*          fields to return (default *)
        --geometry xmin,ymin,xmax,ymax[,SR]
                                    features inside this envelope (SR: its spatial reference)
        --out-sr SR                 output spatial reference: a WKID, EPSG:n, ESRI:n or WKT
        --order-by "f [ASC|DESC],…" order of the features
        --limit N                   at most N features
        --count-only                only the number of features
    \(AnalysisSourceOptions.help)
      -h, --help                  show this help
    """

    init(arguments: inout ArgumentList) throws {
        while let word = try arguments.nextFlag() {
            switch word {
            case "-h", "--help": throw HelpRequested(text: Self.help)
            case "--time": query.time = try arguments.timeExtent(for: word)
            case "--where": query.whereClause = try arguments.whereClause(for: word)
            case "--out-fields":
                let text = try arguments.value(for: word)
                let names = text.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
                guard !names.isEmpty else { throw UsageError.malformed(word, value: text, expected: "a comma-separated list of field names, or *") }
                query.outFields = names == ["*"] ? nil : names
            case "--geometry": query.geometry = try arguments.envelope(for: word)
            case "--out-sr": query.outSpatialReference = try arguments.spatialReference(for: word).code
            case "--order-by":
                let text = try arguments.value(for: word)
                do { query.orderBy = try OrderByField.parseList(text, parameter: word) } catch {
                    throw UsageError.invalidSpecification(flag: word, error: error)
                }
            case "--limit":
                query.resultRecordCount = try arguments.integer(for: word, minimum: 1, maximum: 100_000_000)
            case "--count-only":
                query.returnCountOnly = true
            default:
                if try source.parse(word, from: &arguments) { continue }
                if word.hasPrefix("-") && word != "-" { throw arguments.unknownOption(word, command: "query") }
                try source.take(word, command: "query")
            }
        }
        guard !source.source.isEmpty else { throw UsageError.missingArgument("the layer URL or file", command: "query") }
        try source.checkRemote(command: "query")
        try ArgumentList.checkFormat(source.format, outSR: SpatialReference(code: query.outSpatialReference))
    }

    func run() async throws -> Int32 {
        let job: any AnalysisJob = source.isRemote
            ? LayerQueryJob(layerURL: source.source, query: query)
            : FileQueryJob(path: source.source, load: source.load, query: query)
        var analysis = OneShotAnalysis(format: source.format, remote: source.remote)
        analysis.showsProgress = source.progress
        analysis.coordinates = SpatialReference(code: query.outSpatialReference) ?? .wgs84
        return await analysis.run("query", job: job)
    }
}
