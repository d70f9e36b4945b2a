import EntityStreamModel
/// One event on the bus: what the command line prints as a JSON line and
/// what subscribers receive, in order (stream events, control responses and
/// analysis reports interleaved as they were published).
public struct StreamEvent: Sendable {
    /// When it happened, epoch ms (for observations: when received).
    public var time: Int64
    public var payload: Payload {
        didSet { kind = Self.kind(of: payload) }
    }
    /// The event's kind, kept beside the payload. Filters, kind masks and
    /// the writer ask it of every event at every subscriber; matching the
    /// nested payload there copied it, a retain and a release of every
    /// reference it holds (counted with uprobes on `swift_retain`).
    public private(set) var kind: EventKind
    /// What the session added to an `observation` or `entity-received`
    /// event (the raster cells under it, with `--enrich`); nil otherwise.
    public var enrichment: ObservationEnrichment?
    /// True for the `observation` and `entity-received` events of an
    /// observation primed from the service's `keepLatestArchive` (the last
    /// known observation per track, queried before the socket opened);
    /// written as `"primed":true`. False for everything else.
    public var primed: Bool

    public enum Payload: Sendable {
        case status(ConnectionStatusChange)
        case store(StoreEvent)
        case filter(FilterOutcome)
        case error(StreamErrorReport)
        case response(ControlResponse)
        /// A slow subscriber dropped `count` events (`total` so far).
        case dropped(count: Int, total: Int)
        /// An on-demand analysis reports (accepted, progress, a result, its end).
        case analysis(AnalysisEvent)
    }

    public init(time: Int64, payload: Payload, enrichment: ObservationEnrichment? = nil, primed: Bool = false) {
        self.time = time
        self.kind = Self.kind(of: payload)
        self.payload = payload
        self.enrichment = enrichment
        self.primed = primed
    }

    /// A store event (the store's hot path: its kind is read from the store
    /// event itself, which matching the whole payload would copy).
    init(time: Int64, store event: consuming StoreEvent, enrichment: ObservationEnrichment?, primed: Bool) {
        self.time = time
        self.kind = event.kind
        self.payload = .store(event)
        self.enrichment = enrichment
        self.primed = primed
    }

    private static func kind(of payload: borrowing Payload) -> EventKind {
        switch payload {
        case .status: return .status
        case .store(.entityReceived): return .entityReceived
        case .store(.observation): return .observation
        case .store(.observationPurged): return .observationPurged
        case .store(.entityPurged): return .entityPurged
        case .filter: return .filter
        case .error: return .error
        case .response: return .response
        case .dropped: return .dropped
        case .analysis: return .analysis
        }
    }

    /// The entity this event is about, if any.
    public var entity: EntityReference? {
        guard case .store(let event) = payload else { return nil }
        switch event {
        case .entityReceived(let entity, _, _), .observation(let entity, _, _),
             .observationPurged(let entity, _, _, _), .entityPurged(let entity, _):
            return entity
        }
    }

    /// The observation this event carries, if any.
    public var observation: Observation? {
        guard case .store(let event) = payload else { return nil }
        switch event {
        case .entityReceived(_, _, let observation), .observation(_, _, let observation): return observation
        default: return nil
        }
    }
}
