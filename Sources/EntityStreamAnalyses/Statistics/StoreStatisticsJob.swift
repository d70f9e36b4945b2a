import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel
import EntityStream

/// Grouped statistics over a snapshot of the entity store: over the latest
/// observation of each entity (``Rows/entities``, as the SDK's dynamic
/// entities) or over every retained observation (``Rows/observations``).
///
/// The rows are selected as `query-entities` / `query-observations` select
/// them (``selection``: where clause, envelope, track ids, time extent on
/// the service's time field or the receive time), then aggregated by the
/// one ``StatisticsPlan`` engine: stored observations are read in place as
/// identity-keyed rows, split into ``parts`` runs scanned in parallel and
/// merged (the snapshot is immutable). The plan is compiled against the
/// store's schema when the job runs, so an unknown field, `avg` of a string
/// and the like fail the job with the engine's message before any row is
/// read. Emits one `result` line per group record
/// (``StatisticsRecordJSON``), then a summary (``StoreStatisticsReport``): rows read, groups formed,
/// records kept by the having clause, values numeric statistics ignored,
/// rows beyond the group limit (never silently dropped), the names, the
/// time key and extent. Honours cancellation between chunks of rows.
public struct StoreStatisticsJob: AnalysisJob {
    /// Which rows the statistics are over.
    public enum Rows: String, Sendable, Hashable, CaseIterable {
        /// The latest observation of each entity.
        case entities
        /// Every observation the store retains.
        case observations
    }

    public let request: StatisticsRequest
    public let rows: Rows
    /// Where clause, envelope, track ids, time extent and time field (its
    /// `outFields`, `orderBy`, `limit` and `countOnly` are not used).
    public let selection: QueryObservationsRequest
    /// Parallel runs of an observation scan (clamped to 1…8).
    public let parts: Int
    /// The most groups formed; rows that would open more are counted.
    public let maximumGroups: Int

    /// Two parts: on the 2-core target a 1,000,000-observation scan takes
    /// about half the time in two runs (see the statistics benchmark).
    public static let defaultParts = 2

    public init(request: StatisticsRequest, rows: Rows, selection: QueryObservationsRequest = QueryObservationsRequest(),
                parts: Int = StoreStatisticsJob.defaultParts, maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) {
        self.request = request
        self.rows = rows
        self.selection = selection
        self.parts = min(max(1, parts), 8)
        self.maximumGroups = maximumGroups
    }

    public func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let snapshot = try await context.snapshot()
        let schema = snapshot.contents.schema
        let (accumulator, plan, scan) = try await Self.accumulate(snapshot.contents, request: request, rows: rows, selection: selection,
                                                                  parts: parts, maximumGroups: maximumGroups)
        let result = accumulator.finish()
        try await StatisticsRecordJSON.emit(result.records, in: context)

        return AnalysisSummary(StoreStatisticsReport(of: rows, rows: result.rowCount, groups: result.groupCount, records: result.records.count,
                                                     ignoredValues: result.ignoredValueCount, rowsOverGroupLimit: result.rowsOverGroupLimit,
                                                     groupLimit: maximumGroups, names: StatisticsNames(plan),
                                                     timeField: ReportedTimeField(scan.timeKey, schema: schema), timeExtent: scan.timeExtent))
    }

    /// The rows of `contents` that `selection` picks (latest observations of
    /// entities, or every stored observation), aggregated for `request`: the
    /// accumulator before ``StatisticsAccumulator/finish()``, so that a
    /// caller can merge it with others (a fleet of partitioned consumers).
    /// - Throws: ``AnalysisFailure`` for a request the schema cannot answer,
    ///   `CancellationError` when cancelled during the scan.
    public static func accumulate(_ contents: StoreContents, request: StatisticsRequest, rows: Rows, selection: QueryObservationsRequest,
                                  parts: Int = defaultParts, maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) async throws
        -> (StatisticsAccumulator, StatisticsPlan, ObservationScan) {
        let schema = contents.schema
        let plan: StatisticsPlan
        do { plan = try StatisticsPlan(request, schema: schema) } catch { throw AnalysisFailure(error.description) }
        let scan = try selection.compile(for: schema).scan
        try Task.checkCancellation()
        switch rows {
        case .entities:
            var entities = plan.makeAccumulator(maximumGroups: maximumGroups)
            let query = EntityQuery(whereClause: scan.whereClause, envelope: scan.envelope, trackIDs: scan.trackIDs)
            var cancelled = false
            var seen = 0
            contents.latestObservations(matching: query, timeExtent: scan.timeExtent, timeKey: scan.timeKey) { entity in
                entities.add(entity.latest)
                seen &+= 1
                if seen & 0xFFFF == 0 && Task.isCancelled { cancelled = true }
                return !cancelled
            }
            if cancelled { throw CancellationError() }
            return (entities, plan, scan)
        case .observations:
            return (try await aggregate(contents, scan: scan, plan: plan, parts: parts, maximumGroups: maximumGroups), plan, scan)
        }
    }

    /// Aggregates every stored observation of `contents` matching `scan`
    /// for `plan`: the entities are cut into `parts` runs of about equal
    /// observation counts (``StoreContents/scan(_:part:of:_:)``), each
    /// aggregated into its own accumulator in a child task (on the caller's
    /// executor preference: the analysis executor inside a job), then
    /// merged in run order. One part scans in the calling task. Equal to a
    /// single pass up to the rounding of the merged sums and moments.
    /// - Throws: `CancellationError` when the task is cancelled during the scan.
    public static func aggregate(_ contents: StoreContents, scan: ObservationScan, plan: StatisticsPlan, parts: Int,
                                 maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) async throws -> StatisticsAccumulator {
        if parts <= 1 {
            guard let whole = scanPart(contents, scan: scan, plan: plan, part: 0, of: 1, maximumGroups: maximumGroups) else {
                throw CancellationError()
            }
            return whole
        }
        let pieces = await withTaskGroup(of: (Int, StatisticsAccumulator?).self) { group in
            for part in 0..<parts {
                group.addTask { (part, scanPart(contents, scan: scan, plan: plan, part: part, of: parts, maximumGroups: maximumGroups)) }
            }
            var pieces = [StatisticsAccumulator?](repeating: nil, count: parts)
            for await (part, accumulator) in group { pieces[part] = accumulator }
            return pieces
        }
        guard var merged = pieces[0] else { throw CancellationError() }
        for piece in pieces.dropFirst() {
            guard let piece else { throw CancellationError() }
            merged.merge(piece)
        }
        return merged
    }

    /// One run of the scan into a fresh accumulator; nil when cancelled.
    static func scanPart(_ contents: StoreContents, scan: ObservationScan, plan: StatisticsPlan, part: Int, of parts: Int,
                         maximumGroups: Int) -> StatisticsAccumulator? {
        var accumulator = plan.makeAccumulator(maximumGroups: maximumGroups)
        var cancelled = false
        var seen = 0
        contents.scan(scan, part: part, of: parts) { observation in
            accumulator.add(observation)
            seen &+= 1
            if seen & 0xFFFF == 0 && Task.isCancelled { cancelled = true }
            return !cancelled
        }
        return cancelled ? nil : accumulator
    }
}
