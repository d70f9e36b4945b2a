import EntityStreamCore
import EntityStreamModel
import EntityStreamFeatures
import EntityStream

/// A query of a remote ArcGIS feature layer or table (`…/MapServer/0`,
/// `…/FeatureServer/0`), as the "Query with time extent" sample runs it:
/// the layer's reachability as `status` events (source `layer <url>`),
/// one `result` line per feature as the pages arrive (never the whole
/// answer in memory), `progress` after each page past the first, then a
/// summary with the count, pages and requests. Uses the session's token
/// (renewed once on ArcGIS 498/499 when its source can) and certificate
/// trust.
public struct LayerQueryJob: AnalysisJob {
    public let layerURL: String
    public let query: FeatureQuery

    public init(layerURL: String, query: FeatureQuery) {
        self.layerURL = layerURL
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let connection = try LayerConnection(layerURL: layerURL, context: context)
        let client = connection.client
        var summary = JSONObject([("layer", .string(client.displayURL))])
        do {
            if query.returnCountOnly {
                let count = try await client.count(query)
                summary.append(key: "count", value: .int(Int64(count)))
                return AnalysisSummary(summary)
            }
            let result = try await client.query(query) { page in
                if page.index > 0 {
                    await context.progress(JSONObject([("pages", .int(Int64(page.index + 1))), ("features", .int(Int64(page.features.count)))]))
                }
                let fields = page.schema.fields
                await context.emit(page.features.map { AnalysisFeature($0, fields: fields) })
            }
            summary.append(key: "count", value: .int(Int64(result.featureCount)))
            for member in LayerConnection.pagingMembers(result) { summary.append(key: member.key, value: member.value) }
            if let time = query.time { summary.append(key: "timeExtent", value: time.summaryJSON) }
            return AnalysisSummary(summary)
        } catch let error as FeatureLayerError {
            if case .request(.cancelled) = error { throw CancellationError() }
            throw AnalysisFailure(error.description)
        }
    }
}
