import EntityStreamModel
import EntityStreamWhere
/// A query over the stored history — the engine of `query-observations`: the
/// observations an ``ObservationScan`` selects, ordered, limited, with the
/// chosen fields. Pure: it reads ``StoreContents`` (typically a
/// snapshot) and returns values.
public struct ObservationQuery: Sendable {
    public var scan: ObservationScan
    /// ORDER BY terms; the observation id (arrival order) breaks ties.
    public var order: [ObservationOrder]
    /// At most this many rows (after ordering); nil for all.
    public var limit: Int?
    /// Schema indices of the attributes to return; nil for every field.
    public var outFields: [Int]?

    public init(scan: ObservationScan, order: [ObservationOrder] = [ObservationOrder(key: .time)], limit: Int? = nil, outFields: [Int]? = nil) {
        self.scan = scan
        self.order = order
        self.limit = limit
        self.outFields = outFields
    }

    /// One returned observation.
    public struct Row: Sendable, Hashable {
        public var entity: EntityReference
        public var id: Int64
        public var observation: Observation
        /// The observation's time on the query's time key (nil when it has none).
        public var time: Int64?
    }

    /// What the query found.
    public struct Result: Sendable {
        public var rows: [Row]
        /// Observations that matched, before the limit.
        public var matched: Int
    }

    /// Runs the query on `state`. `shouldStop` is polled every few thousand
    /// observations; when it answers true the query throws ``CancellationError``.
    ///
    /// Ordered by times only (the usual case), it first collects small sort
    /// keys, then rebuilds only the observations the limit keeps; ordered by
    /// fields, it rebuilds every match and sorts them on their keys.
    public func run(on state: StoreContents, shouldStop: () -> Bool = { false }) throws(CancellationError) -> Result {
        let fieldOrder = order.compactMap { term -> Int? in if case .field(let index) = term.key { return index }; return nil }
        if !fieldOrder.isEmpty {
            let rows = try collectRows(state, shouldStop: shouldStop) { _ in true }
            // Sort indices on precomputed keys: rows are large, keys are small.
            let keys = rows.map { row in SortKey(time: row.time, received: row.observation.receivedAt, id: row.id,
                                                  fields: fieldOrder.map { row.observation.attribute($0) }) }
            let ranks = keys.indices.sorted { areInOrder(keys[$0], keys[$1]) }
            return Result(rows: project(ranks.prefix(limit ?? rows.count).map { rows[$0] }), matched: rows.count)
        }
        var keys: [SortKey] = []
        try visit(state, shouldStop: shouldStop) { record in
            keys.append(SortKey(time: time(of: record), received: record.receivedAt, id: record.id))
        }
        keys.sort(by: areInOrder)
        let kept = keys.prefix(limit ?? keys.count)
        var rankByID: [Int64: Int] = [:]
        rankByID.reserveCapacity(kept.count)
        for (rank, key) in kept.enumerated() { rankByID[key.id] = rank }
        let rows = try collectRows(state, shouldStop: shouldStop) { rankByID[$0] != nil }
        var ordered = [Row?](repeating: nil, count: kept.count)
        for row in rows { if let rank = rankByID[row.id] { ordered[rank] = row } }
        return Result(rows: project(ordered.compactMap { $0 }), matched: keys.count)
    }

    private struct SortKey {
        var time: Int64?
        var received: Int64
        var id: Int64
        /// Values of the ORDER BY's fields, in the order they appear in it.
        var fields: [AttributeValue] = []
    }

    private func collectRows(_ state: StoreContents, shouldStop: () -> Bool, keeping: (Int64) -> Bool) throws(CancellationError) -> [Row] {
        var rows: [Row] = []
        try visit(state, shouldStop: shouldStop) { record in
            if keeping(record.id) {
                rows.append(Row(entity: record.entity, id: record.id, observation: record.observation(), time: time(of: record)))
            }
        }
        return rows
    }

    /// Scans `state` with the query's scan, polling `shouldStop` every 4,096 observations.
    private func visit(_ state: StoreContents, shouldStop: () -> Bool, _ body: (StoredObservation) -> Void) throws(CancellationError) {
        var visited = 0
        var stopped = false
        state.scan(scan) { record in
            visited += 1
            if visited & 4095 == 0 && shouldStop() {
                stopped = true
                return false
            }
            body(record)
            return true
        }
        if stopped { throw CancellationError() }
    }

    private func project(_ rows: [Row]) -> [Row] {
        guard let outFields else { return rows }
        return rows.map { row in
            var row = row
            let observation = row.observation
            row.observation.attributes = outFields.map { observation.attribute($0) }
            return row
        }
    }

    private func time(of record: StoredObservation) -> Int64? {
        switch scan.timeKey {
        case .received: return record.receivedAt
        case .field(let start, _): return EntityStoreState.milliseconds(record.value(at: start))
        }
    }

    private func areInOrder(_ a: SortKey, _ b: SortKey) -> Bool {
        var fieldTerm = 0
        for term in order {
            let comparison: Int
            switch term.key {
            case .time: comparison = Self.compare(a.time, b.time)
            case .received: comparison = Self.compare(a.received, b.received)
            case .field:
                comparison = AttributeValueOrdering.compare(a.fields[fieldTerm], b.fields[fieldTerm])
                fieldTerm += 1
            }
            if comparison != 0 { return term.descending ? comparison > 0 : comparison < 0 }
        }
        return a.id < b.id
    }

    /// Nil (no time) first, as SQL sorts NULLs ascending.
    private static func compare(_ a: Int64?, _ b: Int64?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let x?, let y?): return x < y ? -1 : (x == y ? 0 : 1)
        }
    }
}
