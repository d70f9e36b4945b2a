/// Where ``EntityStoreState`` writes what happened, as `Event`s appended to
/// ``events``; `time` is the event's own time when it has one (an
/// observation's receive time), nil for "now".
protocol StoreEventSink {
    associatedtype Event
    var events: [Event] { get set }
    /// Takes `event` (consumed: the store hands its only copy over).
    mutating func append(_ event: consuming StoreEvent, time: Int64?)
}

/// Collects plain store events.
struct StoreEventList: StoreEventSink {
    var events: [StoreEvent] = []
    mutating func append(_ event: consuming StoreEvent, time: Int64?) { events.append(event) }
}

/// Collects bus events, stamping those without a time of their own with
/// `now`; `observation` and `entity-received` events carry `enrichment`.
/// Events of kinds outside `wanted` are left out (nobody would receive them).
struct StreamEventList: StoreEventSink {
    let now: Int64
    let enrichment: ObservationEnrichment?
    let primed: Bool
    let wanted: EventKindMask
    var events: [StreamEvent] = []
    init(now: Int64, enrichment: ObservationEnrichment? = nil, primed: Bool = false, wanted: EventKindMask = .all) {
        self.now = now
        self.enrichment = enrichment
        self.primed = primed
        self.wanted = wanted
    }
    mutating func append(_ event: consuming StoreEvent, time: Int64?) {
        let kind = event.kind
        guard wanted.contains(kind) else { return }
        let decorated = kind == .observation || kind == .entityReceived
        events.append(StreamEvent(time: time ?? now, store: event,
                                  enrichment: decorated ? enrichment : nil, primed: decorated && primed))
    }
}
