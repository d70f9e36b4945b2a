import EntityStreamCore
import Locking

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

    public func run(in context: AnalysisContext) async throws -> JSONObject {
        let statuses = LockedState<[ConnectionStatusChange]>([])
        var options = FeatureLayerClientOptions()
        options.http = context.environment.remote.http
        options.clock = context.environment.clock
        if let token = context.environment.remote.token { options.tokenSource = StaticTokenSource(token) }
        options.onStatus = { change in statuses.withLock { $0.append(change) } }
        let client: FeatureLayerClient
        do { client = try FeatureLayerClient(layerURL: layerURL, options: options) } catch { throw AnalysisFailure(error.description) }
        let source = "layer \(client.displayURL)"
        /// Publishes the status changes so far, in order with the results.
        func flushStatuses() async {
            for var change in statuses.withLock({ changes in defer { changes.removeAll() }; return changes }) {
                change.source = source
                await context.status(change)
            }
        }
        var summary = JSONObject([("layer", .string(client.displayURL))])
        do {
            if query.returnCountOnly {
                let count = try await client.count(query)
                await flushStatuses()
                summary.append(key: "count", value: .int(Int64(count)))
                return summary
            }
            let result = try await client.query(query) { page in
                await flushStatuses()
                if page.index > 0 {
                    await context.progress(JSONObject([("pages", .int(Int64(page.index + 1))), ("features", .int(Int64(page.features.count)))]))
                }
                let fields = page.schema.fields
                await context.emit(page.features.map { AnalysisFeature($0, fields: fields) })
            }
            await flushStatuses()
            summary.append(key: "count", value: .int(Int64(result.featureCount)))
            summary.append(key: "pages", value: .int(Int64(result.pageCount)))
            summary.append(key: "requests", value: .int(Int64(result.requestCount)))
            switch result.strategy {
            case .single: summary.append(key: "paging", value: .string("none"))
            case .pages(let size):
                summary.append(key: "paging", value: .string("resultOffset"))
                summary.append(key: "pageSize", value: .int(Int64(size)))
            case .objectIDBatches(let size):
                summary.append(key: "paging", value: .string("objectIds"))
                summary.append(key: "pageSize", value: .int(Int64(size)))
            }
            if let time = query.time { summary.append(key: "timeExtent", value: .string(time.restParameter)) }
            return summary
        } catch let error as FeatureLayerError {
            await flushStatuses()
            if case .cancelled = error { throw CancellationError() }
            throw AnalysisFailure(error.description)
        } catch {
            await flushStatuses()
            throw error
        }
    }
}
