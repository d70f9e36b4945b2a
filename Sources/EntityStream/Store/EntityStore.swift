import EntityStreamCore
import EntityStreamModel

/// The entity store: entities keyed by track id with their track history,
/// purged by the SDK's limits, publishing every change on the bus.
///
/// An actor owning an ``EntityStoreState``. ``ingest(_:)`` takes decoded
/// stream messages in batches and publishes the resulting events (waiting
/// when the bus applies back-pressure); an age-purge timer driven by the
/// injected clock purges expired observations even when no data arrives.
/// There is one timer task at a time, started again only when the next
/// expiry comes earlier than it wakes: a timer that wakes early finds
/// nothing expired and sleeps on. (Restarting it at every batch left one
/// cancelled sleep per batch pending until its deadline — memory that grew
/// with `--max-duration` while the store held a constant count.)
/// Queries and `purgeAll` run between batches, never in the middle of one.
public actor EntityStore {
    private var state: EntityStoreState
    private let bus: EventBus
    private let clock: any EntityClock
    private var timer: Task<Void, Never>?
    /// When the running timer wakes (nil: none running).
    private var timerDeadline: Int64?
    /// Timer tasks started so far (for tests: it must not grow with batches).
    private(set) var timerStarts = 0
    /// Errors reported under source `store` so far (one count per source).
    private var storeErrorCount = 0
    private var events: [StreamEvent] = []
    private var enricher: (any ObservationEnricher)?

    public init(schema: Schema, options: PurgeOptions, bus: EventBus, clock: any EntityClock = SystemClock()) {
        self.state = EntityStoreState(schema: schema, options: options)
        self.bus = bus
        self.clock = clock
    }

    public var schema: Schema { state.schema }
    public var entityCount: Int { state.entityCount }
    public var observationCount: Int { state.observationCount }
    /// What the store holds in memory, in bytes (``EntityStoreState/storeBytes``).
    public var storeBytes: Int { state.storeBytes }
    public var options: PurgeOptions { state.options }

    /// Adopts a grown schema (e.g. fields learned while decoding). Schemas
    /// only grow by appended fields, so stored observations stay aligned.
    public func updateSchema(_ schema: Schema) {
        if schema != state.schema { state.updateSchema(schema) }
    }

    /// Sets (or with nil removes) the enricher whose values every later
    /// batch's observation events carry (see ``ObservationEnricher``).
    public func enrich(with enricher: (any ObservationEnricher)?) {
        self.enricher = enricher
    }

    /// Stores a batch of decoded messages and publishes what happened, in
    /// order. With an enricher, the batch's points are enriched first (the
    /// store waits for that; queries may run meanwhile, before the batch).
    /// `primed`: the observations come from the service's archive (their
    /// events carry ``StreamEvent/primed``).
    public func ingest(_ messages: [StreamMessage], primed: Bool = false) async {
        let enrichments = await enrichments(for: messages)
        let now = clock.now()
        // Kinds no subscriber takes are not made at all (e.g. purges under `--events observation`).
        let wanted = bus.wantedKinds
        // A fresh array sized for this batch (an observation and at most one
        // purge each, usually): reusing one kept every batch at the largest
        // capacity seen, memory the queues' byte bounds did not count.
        events = []
        events.reserveCapacity(messages.count &* 2 &+ 4)
        // The bytes the events keep alive, summed here where the observations are at hand.
        var observationBytes = 0
        var observationEvents = 0
        var enriched = 0
        for message in messages {
            switch message {
            case .observation(let observation):
                var enrichment: ObservationEnrichment?
                if let enrichments {
                    if enriched < enrichments.values.count { enrichment = enrichments.values[enriched] }
                    enriched &+= 1
                }
                let before = events.count
                store(observation, now: now, enrichment: enrichment, primed: primed, wanted: wanted)
                let made = events.count - before
                observationBytes &+= made &* (StreamEvent.inlineBytes &+ observation.retainedBytes &+ (enrichment?.rasterText.count ?? 0))
                observationEvents &+= made
            case .delete(let observation):
                if let index = state.schema.trackIDIndex {
                    state.delete(trackID: observation.attribute(index), now: now, into: &events)
                }
            case .nonPointGeometry(let kind, let observation):
                storeErrorCount += 1
                events.append(StreamEvent(time: now, payload: .error(StreamErrorReport(
                    source: .store, message: "a \(kind) feature was received; only point geometries become observations (track \(trackText(observation)))",
                    count: storeErrorCount))))
            case .filterReply:
                break
            }
        }
        if let enrichments {
            for problem in enrichments.problems {
                storeErrorCount += 1
                events.append(StreamEvent(time: now, payload: .error(StreamErrorReport(source: .store, message: problem, count: storeErrorCount))))
            }
        }
        let batch = events
        events = []
        await bus.publish(batch, retainedBytes: observationBytes &+ (batch.count &- observationEvents) &* (StreamEvent.inlineBytes &+ 96))
        scheduleTimer()
    }

    /// The enricher's answer for the batch's observations, or nil without one.
    private func enrichments(for messages: [StreamMessage]) async -> ObservationEnrichments? {
        guard let enricher else { return nil }
        var points: [Point?] = []
        points.reserveCapacity(messages.count)
        // By index: iterating the array would copy (retain) every message.
        for index in messages.indices {
            if case .observation(let observation) = messages[index] { points.append(observation.geometry) }
        }
        guard !points.isEmpty else { return nil }
        return await enricher.enrich(points)
    }

    private func store(_ observation: Observation, now: Int64, enrichment: ObservationEnrichment?, primed: Bool, wanted: EventKindMask) {
        if state.ingest(observation, now: now, enrichment: enrichment, primed: primed, wanted: wanted, into: &events) == .missingTrackID {
            storeErrorCount += 1
            let field = state.schema.trackIDField?.name ?? "(none)"
            events.append(StreamEvent(time: now, payload: .error(StreamErrorReport(
                source: .store, message: "observation without a track id (field '\(field)' missing or null); not stored",
                count: storeErrorCount))))
        }
    }

    private func trackText(_ observation: Observation) -> String {
        guard let index = state.schema.trackIDIndex else { return "unknown" }
        switch observation.attribute(index) {
        case .string(let text): return text
        case .int(let number): return String(number)
        default: return "unknown"
        }
    }

    /// Empties the store without disconnecting; one entity-purged event per
    /// entity, flagged purge-all. Returns how many entities were purged.
    @discardableResult
    public func purgeAll() async -> Int {
        var batch: [StreamEvent] = []
        state.purgeAll(now: clock.now(), into: &batch)
        await bus.publish(batch)
        scheduleTimer()
        return batch.count
    }

    /// A consistent copy of the store as of now, for analyses that read it
    /// while ingestion goes on (see ``StoreSnapshot``).
    public func snapshot() -> StoreSnapshot {
        StoreSnapshot(contents: state.contents, asOf: clock.now())
    }

    /// Entities matching `query` (on their latest observations).
    public func query(_ query: EntityQuery) -> [EntitySnapshot] {
        state.query(query)
    }

    /// Up to `maximum` observations of a track, newest first (-1 = all).
    public func observations(trackID: AttributeValue, maximum: Int = -1) -> [(id: Int64, observation: Observation)] {
        state.observations(trackID: trackID, maximum: maximum)
    }

    /// Purges what has expired by now and publishes it (the timer calls this).
    public func purgeExpired() async {
        var batch: [StreamEvent] = []
        state.purgeExpired(now: clock.now(), into: &batch)
        if !batch.isEmpty { await bus.publish(batch) }
        scheduleTimer()
    }

    /// Keeps one timer task sleeping until (at the latest) the next
    /// observation expires. A running timer that wakes no later than that is
    /// kept: when it wakes it purges what expired and sleeps again until the
    /// next expiry then. Only an expiry earlier than the timer (or none
    /// running) starts one.
    private func scheduleTimer() {
        guard let deadline = state.nextExpiry() else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timerStarts += 1
        let clock = self.clock
        timer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.timerFired(deadline)
        }
    }

    private func timerFired(_ deadline: Int64) async {
        guard timerDeadline == deadline else { return }
        timerDeadline = nil
        await purgeExpired()
    }

    /// Stops the age-purge timer.
    public func stop() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }
}
