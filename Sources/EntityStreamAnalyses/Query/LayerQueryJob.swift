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
        do {
            if query.returnCountOnly {
                return AnalysisSummary(LayerQueryReport(layer: client.displayURL, count: try await client.count(query)))
            }
            let result = try await client.query(query) { page in
                if page.index > 0 {
                    await context.progress(PagesProgress(pages: page.index + 1, count: page.features.count, unit: .features))
                }
                let fields = page.schema.fields
                await context.emit(page.features.map { AnalysisFeature($0, fields: fields) })
            }
            return AnalysisSummary(LayerQueryReport(layer: client.displayURL, count: result.featureCount, paging: LayerPaging(result),
                                                    timeExtent: query.time))
        } catch let error as FeatureLayerError {
            if case .request(.cancelled) = error { throw CancellationError() }
            throw AnalysisFailure(error.description)
        }
    }
}
