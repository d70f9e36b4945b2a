import EntityStreamCore
import EntityStreamLocking
import EntityStreamStatistics
import EntityStreamModel
import EntityStreamFeatures
import EntityStream

/// Grouped statistics from a remote ArcGIS feature layer or table, computed
/// by the server: the REST query with `outStatistics`,
/// `groupByFieldsForStatistics`, `orderByFields` and `having` (plus
/// ``query``'s `where`, `time`, `geometry`), its groups paged by
/// `resultOffset` while the server says `exceededTransferLimit` (in a
/// stable order: the requested one, then the group-by fields).
///
/// Before querying, the request is compiled against the layer's own field
/// list (its description), so type errors are the same clear messages as
/// for a file or the store, and each statistic is asked for under its final
/// output name; a layer that says it cannot compute statistics is refused
/// by name. A having clause goes to the server as `having` only when the
/// layer advertises `supportsHavingClause`; otherwise (an older server,
/// which would ignore it and answer every group) the statistics it needs
/// are asked for too and it is applied here, and the job says so: a
/// `progress` line with a `note` first, then `havingAppliedLocally` and
/// `groupsDroppedByHaving` in the summary. The layer's reachability is reported as
/// `status` events (source `layer <url>`), each page's records as `result`
/// lines as they arrive, `progress` after each page past the first, then a
/// summary (``LayerStatisticsReport``): the layer, the records, pages, requests and paging. Uses the
/// session's token and certificate trust.
public struct LayerStatisticsJob: AnalysisJob {
    public let layerURL: String
    public let request: StatisticsRequest
    /// `where`, `time`, `geometry` (its other parameters are replaced).
    public let query: FeatureQuery

    public init(layerURL: String, request: StatisticsRequest, query: FeatureQuery = FeatureQuery()) {
        self.layerURL = layerURL
        self.request = request
        self.query = query
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let connection = try LayerConnection(layerURL: layerURL, context: context)
        let client = connection.client
        do {
            let description = try await client.description()
            let advanced = description.advancedQueryCapabilities
            guard description.supportsStatistics || advanced?.supportsStatistics == true else {
                throw AnalysisFailure("the layer \(client.displayURL) does not support statistics queries (supportsStatistics is false)")
            }
            let plan: StatisticsPlan
            do { plan = try StatisticsPlan(request, schema: Schema(fields: description.fields)) } catch {
                throw AnalysisFailure(error.description)
            }
            var statisticsQuery = FeatureQuery(whereClause: query.whereClause, time: query.time, geometry: query.geometry,
                                               spatialRelationship: query.spatialRelationship)
            let havingHere = plan.hasHaving && !(advanced?.supportsHavingClause ?? false)
            if havingHere {
                request.applyForLocalHaving(to: &statisticsQuery, plan: plan)
                await context.progress(NoteProgress("the layer does not advertise supportsHavingClause: the having clause is applied here to the groups it answers"))
            } else {
                request.apply(to: &statisticsQuery, plan: plan)
            }
            let dropped = LockedState<Int>(0)
            let result = try await client.query(statisticsQuery) { page in
                if page.index > 0 {
                    await context.progress(PagesProgress(pages: page.index + 1, count: page.features.count, unit: .records))
                }
                let records: [StatisticsRecord]
                do {
                    let read = try plan.records(from: page, applyingHaving: havingHere)
                    records = read.records
                    dropped.withLock { $0 += read.dropped }
                } catch {
                    throw AnalysisFailure("the layer \(client.displayURL) answered the statistics query unexpectedly: \(error)")
                }
                try await StatisticsRecordJSON.emit(records, in: context)
            }
            let droppedHere = dropped.withLock { $0 }
            return AnalysisSummary(LayerStatisticsReport(layer: client.displayURL, records: result.featureCount - droppedHere,
                                                         groupsDroppedByHaving: havingHere ? droppedHere : nil, paging: LayerPaging(result),
                                                         names: StatisticsNames(plan), timeExtent: query.time))
        } catch let error as FeatureLayerError {
            if case .request(.cancelled) = error { throw CancellationError() }
            throw AnalysisFailure(error.description)
        }
    }
}
