import EntityStreamCore
import Locking

/// A ``FeatureLayerClient`` made for one analysis job from the session's
/// remote options (token, TLS trust, HTTP limits, clock), whose status
/// changes are kept and published as the job's `status` events (source
/// `layer <url>`) each time ``flushStatuses(to:)`` is called — so they come
/// out in order with the job's results. Sendable.
struct LayerConnection: Sendable {
    let client: FeatureLayerClient
    /// `layer <url>` (no token).
    let source: String
    private let statuses: LockedState<[ConnectionStatusChange]>

    /// - Throws: ``AnalysisFailure`` for a URL the client refuses.
    init(layerURL: String, environment: AnalysisEnvironment) throws(AnalysisFailure) {
        let statuses = LockedState<[ConnectionStatusChange]>([])
        var options = FeatureLayerClientOptions()
        options.http = environment.remote.http
        options.clock = environment.clock
        if let token = environment.remote.token { options.tokenSource = StaticTokenSource(token) }
        options.onStatus = { change in statuses.withLock { $0.append(change) } }
        do { client = try FeatureLayerClient(layerURL: layerURL, options: options) } catch { throw AnalysisFailure(error.description) }
        source = "layer \(client.displayURL)"
        self.statuses = statuses
    }

    /// Publishes the status changes so far, in order.
    func flushStatuses(to context: AnalysisContext) async {
        for var change in statuses.withLock({ changes in defer { changes.removeAll() }; return changes }) {
            change.source = source
            await context.status(change)
        }
    }

    /// The summary members that say how a paged query was fetched.
    static func pagingMembers(_ result: FeatureQuerySummary) -> JSONObject {
        var members = JSONObject([("pages", .int(Int64(result.pageCount))), ("requests", .int(Int64(result.requestCount)))])
        switch result.strategy {
        case .single: members.append(key: "paging", value: .string("none"))
        case .pages(let size):
            members.append(key: "paging", value: .string("resultOffset"))
            members.append(key: "pageSize", value: .int(Int64(size)))
        case .objectIDBatches(let size):
            members.append(key: "paging", value: .string("objectIds"))
            members.append(key: "pageSize", value: .int(Int64(size)))
        }
        return members
    }
}
