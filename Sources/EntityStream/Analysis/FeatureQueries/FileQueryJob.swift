import EntityStreamCore

/// The same query as ``LayerQueryJob`` on a local file (CSV, Esri JSON,
/// GeoJSON, a recording) read as a feature table: one `result` line per
/// feature, then a summary with the count and what loading skipped.
public struct FileQueryJob: AnalysisJob {
    public let path: String
    public let load: FeatureLoadOptions
    public let query: FeatureQuery

    public init(path: String, load: FeatureLoadOptions = FeatureLoadOptions(), query: FeatureQuery) {
        self.path = path
        self.load = load
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> JSONObject {
        let table: FeatureTable
        do { table = try FeatureFile.load(path: path, options: load) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        var summary = JSONObject([("file", .string(path)), ("rows", .int(Int64(table.count)))])
        let result: FeatureQueryResult
        do { result = try FeatureQueryEngine(maxRecordCount: Int.max).run(query, on: table) } catch { throw AnalysisFailure(error.description) }
        try context.checkCancellation()
        switch result {
        case .count(let count):
            summary.append(key: "count", value: .int(Int64(count)))
        case .features(let selection):
            var start = 0
            while start < selection.rows.count {
                try context.checkCancellation()
                let end = min(start + 1024, selection.rows.count)
                await context.emit((start..<end).map { position in
                    AnalysisFeature(table: table, row: selection.rows[position], fields: selection.fieldIndices,
                                    geometry: selection.returnGeometry ? selection.geometry(at: position) : nil)
                })
                start = end
            }
            summary.append(key: "count", value: .int(Int64(selection.rows.count)))
        case .objectIDs(_, let ids):
            summary.append(key: "count", value: .int(Int64(ids.count)))
        case .statistics:
            throw AnalysisFailure("statistics queries run with the statistics command")
        case .extent(let extent, _, let count):
            if let count { summary.append(key: "count", value: .int(Int64(count))) }
            summary.append(key: "extent", value: extent.map { .array([.double($0.xmin), .double($0.ymin), .double($0.xmax), .double($0.ymax)]) } ?? .null)
        }
        if let time = query.time { summary.append(key: "timeExtent", value: time.summaryJSON) }
        return summary
    }
}
