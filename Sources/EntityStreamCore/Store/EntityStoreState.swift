import EntityStreamModel
/// The entity store's logic as a value type: entities keyed by track id,
/// each with a numeric runtime id, its latest observation and its history,
/// and the purge limits of ``PurgeOptions``.
///
/// Every mutating method appends what happened to an events array, in order:
/// for a new observation `entityReceived` (when it starts an entity), then
/// `observation`, then any `observationPurged` it caused, then any
/// `entityPurged`. Each has two forms: plain ``StoreEvent``s, or bus
/// ``StreamEvent``s written directly (observations stamped with their
/// receive time, everything else with `now`). Time is passed in (`now`,
/// epoch ms), never read, so tests drive it directly. Not thread-safe on its
/// own; the `EntityStore` actor owns one.
public struct EntityStoreState: Sendable {
    /// One slot of the entity table; slots are reused after their entity is purged.
    ///
    /// The latest observation is not kept as such (keeping it cost a copy of
    /// every observation and the release of the one before): it is rebuilt
    /// on demand from `latestPacked`, its attributes (exactly as many as it
    /// had), and its history record, which holds the references of their
    /// interned strings and the geometry and receive time.
    struct Entity {
        var isLive: Bool
        var reference: EntityReference
        var latestID: Int64
        var latestPacked: [UInt64]
        var history = TrackHistory()

        /// Appends the observation just packed into `latestPacked` to the history
        /// (in here, the packed words are passed without a retain and a release).
        mutating func appendLatest(id: Int64, geometry: Point?, receivedAt: Int64, timeFields: HistoryChunk.TimeFields,
                                   start: Int64?, end: Int64?) {
            history.append(id: id, geometry: geometry, receivedAt: receivedAt, packedAttributes: latestPacked,
                           timeFields: timeFields, start: start, end: end)
            latestID = id
        }

        /// The latest observation (without its source text, which the store never keeps).
        func latest(strings: UnsafeBufferPointer<String>) -> Observation {
            let newest = history.newest
            return Observation(geometry: newest?.geometry, attributes: latestPacked.map { PackedValue.unpack($0, strings: strings) },
                               receivedAt: newest?.receivedAt ?? 0)
        }
    }

    /// What ``ingest(_:now:into:)`` did with an observation.
    public enum IngestOutcome: Sendable, Hashable {
        case stored
        /// The observation carries no track id (the field is missing or null); nothing was stored.
        case missingTrackID
    }

    public let options: PurgeOptions
    public private(set) var schema: Schema
    private(set) var slotsByTrack = TrackIndex()
    private(set) var entities: [Entity] = []
    private var freeSlots: [Int] = []
    private var arrivals = ArrivalQueue()
    private(set) var strings = StringTable()
    private var nextEntityID: Int64 = 1
    private var nextObservationID: Int64 = 1
    /// Observations currently stored, across all tracks.
    public private(set) var observationCount = 0
    /// Words the live entities' history chunks hold, and those chunks (see ``storeBytes``).
    private var historyWords = 0
    private var historyChunks = 0
    /// Words the live entities' latest packed attributes hold.
    private var latestWords = 0

    public init(schema: Schema, options: PurgeOptions) {
        self.schema = schema
        self.options = options
    }

    /// Entities currently stored.
    public var entityCount: Int { slotsByTrack.count }

    /// What the store holds in memory, in bytes, as ``PurgeOptions/maximumStoreBytes``
    /// limits it: the history chunks' words (8 bytes per attribute plus 32 per
    /// observation, 48 with z and m, as allocated: ``HistoryChunk`` keeps them
    /// within about four times the live records' words), ``chunkBytes`` per
    /// chunk, ``entityBytes`` per entity plus 8 per attribute of its latest
    /// observation, the distinct strings (48 bytes each, plus the text beyond
    /// 15 UTF-8 bytes), and 8 bytes per queued arrival. O(1).
    public var storeBytes: Int {
        historyWords &* 8 &+ historyChunks &* Self.chunkBytes &+ entityCount &* Self.entityBytes &+ latestWords &* 8
            &+ strings.bytes &+ arrivals.storedCount &* 8
    }

    /// The fixed cost of one entity: its slot in the entity table, its place
    /// in the track index (kept at most half full), and the headers of its two
    /// arrays (latest attributes, chunks) with the allocator's own words.
    public static let entityBytes = MemoryLayout<Entity>.stride + 2 * (MemoryLayout<AttributeValue>.stride + 12) + 2 * 48
    /// The fixed cost of one history chunk beside its words: its place in its
    /// track's array, its storage object and the allocator's words.
    public static let chunkBytes = MemoryLayout<HistoryChunk>.stride + 64 + 16

    /// Adopts a grown schema (fields are only ever appended).
    public mutating func updateSchema(_ schema: Schema) {
        self.schema = schema
    }

    // MARK: Ingest

    /// Stores `observation` and applies the purge limits at `now`.
    @discardableResult
    public mutating func ingest(_ observation: Observation, now: Int64, into events: inout [StoreEvent]) -> IngestOutcome {
        writing(&events, to: StoreEventList()) { $0.ingest(observation, now: now, sink: &$1) }
    }

    /// Stores `observation`, appending bus events; its `observation` and
    /// `entity-received` events carry `enrichment` and, for an observation
    /// primed from the service's archive, `primed`. Events of kinds outside
    /// `wanted` are not made (the store changes all the same): the bus passes
    /// what its subscribers want between them (``EventKindMask``).
    @discardableResult
    public mutating func ingest(_ observation: Observation, now: Int64, enrichment: ObservationEnrichment? = nil,
                                primed: Bool = false, wanted: EventKindMask = .all, into events: inout [StreamEvent]) -> IngestOutcome {
        writing(&events, to: StreamEventList(now: now, enrichment: enrichment, primed: primed, wanted: wanted)) {
            $0.ingest(observation, now: now, sink: &$1)
        }
    }

    private mutating func ingest<Sink: StoreEventSink>(_ observation: Observation, now: Int64, sink events: inout Sink) -> IngestOutcome {
        guard let trackIndex = schema.trackIDIndex else { return .missingTrackID }
        let trackID = observation.attribute(trackIndex)
        if trackID.isNull { return .missingTrackID }

        let id = nextObservationID
        nextObservationID += 1
        let slot: Int
        if let existing = slotsByTrack[trackID] {
            slot = existing
        } else {
            slot = makeEntity(trackID: trackID, observation: observation, id: id)
            events.append(.entityReceived(entities[slot].reference, observationID: id, observation), time: observation.receivedAt)
        }
        pack(observation, slot: slot)
        let timeFields = HistoryChunk.TimeFields(start: schema.startTimeIndex, end: schema.endTimeIndex)
        let start = timeFields.start.flatMap { Self.milliseconds(observation.attribute($0)) }
        let end = timeFields.end.flatMap { Self.milliseconds(observation.attribute($0)) }
        let wordsBefore = entities[slot].history.allocatedWords
        let chunksBefore = entities[slot].history.liveChunkCount
        entities[slot].appendLatest(id: id, geometry: observation.geometry, receivedAt: observation.receivedAt,
                                    timeFields: timeFields, start: start, end: end)
        historyWords &+= entities[slot].history.allocatedWords &- wordsBefore
        historyChunks &+= entities[slot].history.liveChunkCount &- chunksBefore
        arrivals.append(slot: slot, id: id)
        observationCount += 1
        events.append(.observation(entities[slot].reference, observationID: id, observation), time: observation.receivedAt)

        let perTrack = options.maximumObservationsPerTrack
        if perTrack > 0 {
            while entities[slot].isLive && entities[slot].history.count > perTrack {
                purgeOldest(ofSlot: slot, reason: .maximumObservationsPerTrack, into: &events)
                noteStaleArrivals()
            }
        }
        let total = options.maximumObservations
        if total > 0 {
            while observationCount > total, purgeGloballyOldest(reason: .maximumObservations, into: &events) {}
        }
        let bytes = options.maximumStoreBytes
        if bytes > 0 {
            while storeBytes > bytes, purgeGloballyOldest(reason: .maximumStoreBytes, into: &events) {}
        }
        purgeExpired(now: now, sink: &events)
        return .stored
    }

    /// A time attribute as epoch ms (dates and integers as they are, finite
    /// doubles truncated), nil when absent or outside ``Instant/range``;
    /// the same rule the scan applies to stored words.
    static func milliseconds(_ value: AttributeValue) -> Int64? {
        switch value {
        case .date(let milliseconds), .int(let milliseconds):
            return Instant.range.contains(milliseconds) ? milliseconds : nil
        case .double(let number):
            guard number.isFinite, number >= Double(Instant.range.lowerBound), number <= Double(Instant.range.upperBound) else { return nil }
            return Int64(number)
        case .null, .bool, .string:
            return nil
        }
    }

    private mutating func makeEntity(trackID: AttributeValue, observation: Observation, id: Int64) -> Int {
        let reference = EntityReference(entityID: nextEntityID, trackID: trackID)
        nextEntityID += 1
        let entity = Entity(isLive: true, reference: reference, latestID: id, latestPacked: [])
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            entities[slot] = entity
        } else {
            slot = entities.count
            entities.append(entity)
        }
        slotsByTrack[trackID] = slot
        return slot
    }

    /// Packs the attributes into the entity's `latestPacked`, in place,
    /// reusing the interned id when a string equals the same field of the
    /// track's previous observation (no hashing then). The previous words stay
    /// valid until overwritten: the previous record still holds its references.
    private mutating func pack(_ observation: Observation, slot: Int) {
        observation.withAttributeValues { pack($0, slot: slot) }
    }

    private mutating func pack(_ attributes: UnsafeBufferPointer<AttributeValue>, slot: Int) {
        let previousCount = entities[slot].latestPacked.count
        var packed = entities[slot].latestPacked
        entities[slot].latestPacked = []
        if packed.count != attributes.count {
            latestWords &+= attributes.count &- packed.count
            packed = [UInt64](repeating: PackedValue.null, count: attributes.count)
        }
        for index in attributes.indices {
            let value = attributes[index]
            if case .string(let text) = value, index < previousCount, PackedValue.tag(packed[index]) == PackedValue.stringTag,
               ExactText.equal(strings.string(PackedValue.stringID(packed[index])), text) {
                strings.retain(id: PackedValue.stringID(packed[index]))
            } else {
                packed[index] = PackedValue.pack(value, strings: &strings)
            }
        }
        entities[slot].latestPacked = packed
    }

    // MARK: Purging

    /// Purges every observation older than ``PurgeOptions/maximumDuration`` at `now`.
    public mutating func purgeExpired(now: Int64, into events: inout [StoreEvent]) {
        writing(&events, to: StoreEventList()) { $0.purgeExpired(now: now, sink: &$1) }
    }

    public mutating func purgeExpired(now: Int64, into events: inout [StreamEvent]) {
        writing(&events, to: StreamEventList(now: now)) { $0.purgeExpired(now: now, sink: &$1) }
    }

    private mutating func purgeExpired<Sink: StoreEventSink>(now: Int64, sink events: inout Sink) {
        guard let maximumAge = options.maximumAgeMilliseconds else { return }
        while let oldest = globallyOldest(), now - oldest.receivedAt > maximumAge {
            _ = purgeGloballyOldest(reason: .maximumDuration, into: &events)
        }
    }

    /// When the next observation will be old enough to purge (epoch ms), if
    /// any. Mutating only because it drops the stale arrival entries it
    /// passes over (work ``purgeExpired(now:into:)`` would do anyway); what
    /// is stored does not change.
    public mutating func nextExpiry() -> Int64? {
        guard let maximumAge = options.maximumAgeMilliseconds, let oldest = globallyOldest() else { return nil }
        return oldest.receivedAt + maximumAge + 1
    }

    /// Empties the store without observation-purged events: one
    /// `entityPurged(…, cause: .purgeAll)` per entity, in entity-id order.
    public mutating func purgeAll(into events: inout [StoreEvent]) {
        writing(&events, to: StoreEventList()) { $0.purgeAll(sink: &$1) }
    }

    public mutating func purgeAll(now: Int64, into events: inout [StreamEvent]) {
        writing(&events, to: StreamEventList(now: now)) { $0.purgeAll(sink: &$1) }
    }

    private mutating func purgeAll<Sink: StoreEventSink>(sink events: inout Sink) {
        let references = entities.filter(\.isLive).map(\.reference).sorted { $0.entityID < $1.entityID }
        for reference in references { events.append(.entityPurged(reference, cause: .purgeAll), time: nil) }
        slotsByTrack = TrackIndex()
        entities = []
        freeSlots = []
        arrivals.removeAll()
        strings.removeAll()
        observationCount = 0
        historyWords = 0
        historyChunks = 0
        latestWords = 0
    }

    /// Removes the entity of `trackID` (a service `delete` message). Returns
    /// false when no such entity exists.
    @discardableResult
    public mutating func delete(trackID: AttributeValue, into events: inout [StoreEvent]) -> Bool {
        writing(&events, to: StoreEventList()) { $0.delete(trackID: trackID, sink: &$1) }
    }

    @discardableResult
    public mutating func delete(trackID: AttributeValue, now: Int64, into events: inout [StreamEvent]) -> Bool {
        writing(&events, to: StreamEventList(now: now)) { $0.delete(trackID: trackID, sink: &$1) }
    }

    private mutating func delete<Sink: StoreEventSink>(trackID: AttributeValue, sink events: inout Sink) -> Bool {
        guard let slot = slotsByTrack[trackID], entities[slot].isLive else { return false }
        let removed = entities[slot].history.count
        let reference = entities[slot].reference
        observationCount -= removed
        removeEntity(slot: slot)
        noteStaleArrivals(count: removed)
        events.append(.entityPurged(reference, cause: .deleted), time: nil)
        return true
    }

    /// Notes `count` arrival entries gone stale, compacting the queue (at
    /// most once) when stale entries outnumber live ones.
    private mutating func noteStaleArrivals(count: Int = 1) {
        guard arrivals.noteStale(count: count) else { return }
        let entities = self.entities
        arrivals.compact { slot, id in
            guard slot < entities.count, entities[slot].isLive, let oldest = entities[slot].history.oldest else { return false }
            return ArrivalQueue.truncated(oldest.id) <= id && id <= ArrivalQueue.truncated(entities[slot].latestID)
        }
    }

    /// Drops stale arrival entries and returns the oldest live observation.
    private mutating func globallyOldest() -> (slot: Int, receivedAt: Int64)? {
        while let front = arrivals.front {
            if front.slot < entities.count, entities[front.slot].isLive,
               let oldest = entities[front.slot].history.oldest, ArrivalQueue.truncated(oldest.id) == front.id {
                return (front.slot, oldest.receivedAt)
            }
            arrivals.popFront()
            arrivals.staleEntryPopped()
        }
        return nil
    }

    private mutating func purgeGloballyOldest<Sink: StoreEventSink>(reason: PurgeReason, into events: inout Sink) -> Bool {
        guard let oldest = globallyOldest() else { return false }
        arrivals.popFront()
        purgeOldest(ofSlot: oldest.slot, reason: reason, into: &events)
        return true
    }

    private mutating func purgeOldest<Sink: StoreEventSink>(ofSlot slot: Int, reason: PurgeReason, into events: inout Sink) {
        guard entities[slot].isLive else { return }
        let wordsBefore = entities[slot].history.allocatedWords
        let chunksBefore = entities[slot].history.liveChunkCount
        guard let removed = entities[slot].history.removeOldest(strings: &strings) else { return }
        historyWords &+= entities[slot].history.allocatedWords &- wordsBefore
        historyChunks &+= entities[slot].history.liveChunkCount &- chunksBefore
        observationCount -= 1
        let reference = entities[slot].reference
        events.append(.observationPurged(reference, observationID: removed.id, receivedAt: removed.receivedAt, reason: reason), time: nil)
        if entities[slot].history.count == 0 {
            removeEntity(slot: slot)
            events.append(.entityPurged(reference, cause: .lastObservationPurged), time: nil)
        }
    }

    /// Takes the entity in `slot` out (its history, if any is left, released).
    private mutating func removeEntity(slot: Int) {
        guard entities[slot].isLive else { return }
        historyWords &-= entities[slot].history.allocatedWords
        historyChunks &-= entities[slot].history.liveChunkCount
        entities[slot].history.releaseAll(strings: &strings)
        latestWords &-= entities[slot].latestPacked.count
        slotsByTrack[entities[slot].reference.trackID] = nil
        entities[slot].isLive = false
        entities[slot].history = TrackHistory()
        entities[slot].latestPacked = []
        freeSlots.append(slot)
    }

    /// Runs `body` with a `sink` writing to `events` (moved in and back out, never copied).
    @inline(__always)
    private mutating func writing<Sink: StoreEventSink, Result>(
        _ events: inout [Sink.Event], to sink: Sink, _ body: (inout EntityStoreState, inout Sink) -> Result
    ) -> Result {
        var sink = sink
        swap(&sink.events, &events)
        defer { swap(&sink.events, &events) }
        return body(&self, &sink)
    }

    // MARK: Reading

    /// What the store holds now, as a value (O(1); see ``StoreContents``).
    public var contents: StoreContents {
        StoreContents(schema: schema, entities: entities, slotsByTrack: slotsByTrack, strings: strings.storage,
                      entityCount: entityCount, observationCount: observationCount)
    }

    /// Visits the stored observations matching `scan` (see ``StoreContents/scan(_:_:)``).
    @discardableResult
    public func scan(_ scan: ObservationScan, _ visit: (StoredObservation) throws -> Bool) rethrows -> Int {
        try contents.scan(scan, visit)
    }

    /// Counts the stored observations matching `scan`.
    public func count(_ scan: ObservationScan) -> Int {
        contents.count(scan)
    }

    /// Entities matching `query`, by entity id (``StoreContents/latestObservations(matching:timeExtent:timeKey:_:)``).
    public func query(_ query: EntityQuery) -> [EntitySnapshot] {
        var result: [EntitySnapshot] = []
        contents.latestObservations(matching: query) { snapshot in
            result.append(snapshot)
            return true
        }
        return result
    }

    /// The entity of `trackID`, if stored.
    public func entity(trackID: AttributeValue) -> EntitySnapshot? {
        guard let slot = slotsByTrack[trackID] else { return nil }
        let entity = entities[slot]
        return EntitySnapshot(entity: entity.reference, observationCount: entity.history.count,
                              latestObservationID: entity.latestID, latest: strings.withStrings { entity.latest(strings: $0) })
    }

    /// Up to `maximum` observations of the entity of `trackID`, newest first
    /// (-1 = all), as the SDK's `observations(maximum:)`; empty when not stored.
    public func observations(trackID: AttributeValue, maximum: Int = -1) -> [(id: Int64, observation: Observation)] {
        guard let slot = slotsByTrack[trackID] else { return [] }
        return entities[slot].history.observations(maximum: maximum, strings: strings)
    }

    /// What the state holds in memory beyond the observations themselves
    /// (for tests that check memory follows the store's contents).
    struct Footprint {
        var arrivalEntries: Int
        var arrivalCapacity: Int
        var retainedRecords: Int
        var chunks: Int
        var chunkWords: Int
        var entitySlots: Int
    }

    var footprint: Footprint {
        var records = 0, chunks = 0, words = 0
        for entity in entities where entity.isLive {
            let retained = entity.history.retainedRecords
            records += retained.records
            chunks += retained.chunks
            words += retained.capacityWords
        }
        return Footprint(arrivalEntries: arrivals.storedCount, arrivalCapacity: arrivals.capacity, retainedRecords: records,
                         chunks: chunks, chunkWords: words, entitySlots: entities.count)
    }

    /// Distinct interned strings (for memory diagnostics).
    public var internedStringCount: Int { strings.count }
}
