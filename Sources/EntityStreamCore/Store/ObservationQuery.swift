/// A query over the stored history — the engine of `query-observations`: the
/// observations an ``ObservationScan`` selects, ordered, limited, with the
/// chosen fields. Pure: it reads an ``EntityStoreState`` (typically a
/// snapshot copy) and returns values.
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
    public func run(on state: EntityStoreState, shouldStop: () -> Bool = { false }) throws(CancellationError) -> Result {
        var rows: [Row] = []
        var visited = 0
        var stopped = false
        let strings = state.strings
        state.scan(scan) { record in
            visited += 1
            if visited & 4095 == 0 && shouldStop() {
                stopped = true
                return false
            }
            rows.append(Row(entity: record.entity, id: record.id, observation: record.observation(), time: time(of: record, strings: strings)))
            return true
        }
        if stopped { throw CancellationError() }
        let matched = rows.count
        rows.sort(by: areInOrder)
        if let limit, rows.count > limit { rows.removeSubrange(limit...) }
        if let outFields {
            for index in rows.indices {
                let observation = rows[index].observation
                rows[index].observation.attributes = outFields.map { observation.attribute($0) }
            }
        }
        return Result(rows: rows, matched: matched)
    }

    private func time(of record: StoredObservation, strings: StringTable) -> Int64? {
        switch scan.timeKey {
        case .received: return record.receivedAt
        case .field(let start, _): return EntityStoreState.milliseconds(record.value(at: start))
        }
    }

    private func areInOrder(_ a: Row, _ b: Row) -> Bool {
        for term in order {
            let comparison: Int
            switch term.key {
            case .time: comparison = Self.compare(a.time, b.time)
            case .received: comparison = Self.compare(a.observation.receivedAt, b.observation.receivedAt)
            case .field(let index): comparison = AttributeValueOrdering.compare(a.observation.attribute(index), b.observation.attribute(index))
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
