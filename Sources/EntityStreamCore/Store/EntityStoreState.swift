/// The entity store's logic as a value type: entities keyed by track id,
/// each with a numeric runtime id, its latest observation and its history,
/// and the purge limits of ``PurgeOptions``.
///
/// Every mutating method appends what happened to an events array, in order:
/// for a new observation `entityReceived` (when it starts an entity), then
/// `observation`, then any `observationPurged` it caused, then any
/// `entityPurged`. Time is passed in (`now`, epoch ms), never read, so tests
/// drive it directly. Not thread-safe on its own; the `EntityStore` actor
/// owns one.
public struct EntityStoreState: Sendable {
    private struct Entity {
        var reference: EntityReference
        var latest: Observation
        var latestID: Int64
        var latestPacked: [UInt64]
        var history = TrackHistory()
    }

    /// What ``ingest(_:now:into:)`` did with an observation.
    public enum IngestOutcome: Sendable, Hashable {
        case stored
        /// The observation carries no track id (the field is missing or null); nothing was stored.
        case missingTrackID
    }

    public let options: PurgeOptions
    public private(set) var schema: Schema
    private var slotsByTrack: [AttributeValue: Int] = [:]
    private var entities: [Entity?] = []
    private var freeSlots: [Int] = []
    private var arrivals = ArrivalQueue()
    private var strings = StringTable()
    private var nextEntityID: Int64 = 1
    private var nextObservationID: Int64 = 1
    /// Observations currently stored, across all tracks.
    public private(set) var observationCount = 0

    public init(schema: Schema, options: PurgeOptions) {
        self.schema = schema
        self.options = options
    }

    /// Entities currently stored.
    public var entityCount: Int { slotsByTrack.count }

    /// Adopts a grown schema (fields are only ever appended).
    public mutating func updateSchema(_ schema: Schema) {
        self.schema = schema
    }

    // MARK: Ingest

    @discardableResult
    public mutating func ingest(_ observation: Observation, now: Int64, into events: inout [StoreEvent]) -> IngestOutcome {
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
            events.append(.entityReceived(entities[slot]!.reference, observationID: id, observation))
        }
        let packed = pack(observation, slot: slot)
        entities[slot]!.history.append(id: id, observation: observation, packedAttributes: packed)
        entities[slot]!.latest = observation
        entities[slot]!.latestID = id
        entities[slot]!.latestPacked = packed
        arrivals.append(slot: slot, id: id)
        observationCount += 1
        events.append(.observation(entities[slot]!.reference, observationID: id, observation))

        let perTrack = options.maximumObservationsPerTrack
        if perTrack > 0 {
            while let entity = entities[slot], entity.history.count > perTrack {
                purgeOldest(ofSlot: slot, reason: .maximumObservationsPerTrack, into: &events)
                noteStaleArrival()
            }
        }
        let total = options.maximumObservations
        if total > 0 {
            while observationCount > total, purgeGloballyOldest(reason: .maximumObservations, into: &events) {}
        }
        purgeExpired(now: now, into: &events)
        return .stored
    }

    private mutating func makeEntity(trackID: AttributeValue, observation: Observation, id: Int64) -> Int {
        let reference = EntityReference(entityID: nextEntityID, trackID: trackID)
        nextEntityID += 1
        let entity = Entity(reference: reference, latest: observation, latestID: id, latestPacked: [])
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

    /// Packs the attributes, reusing the interned id when a string equals the
    /// same field of the track's latest observation (no hashing then).
    private mutating func pack(_ observation: Observation, slot: Int) -> [UInt64] {
        let attributes = observation.attributes
        var packed = [UInt64](repeating: PackedValue.null, count: attributes.count)
        let entity = entities[slot]!
        let previous = entity.latestPacked
        for index in attributes.indices {
            let value = attributes[index]
            if case .string = value, index < previous.count, PackedValue.isString(previous[index]),
               entity.latest.attribute(index) == value {
                strings.retain(id: PackedValue.stringID(previous[index]))
                packed[index] = previous[index]
            } else {
                packed[index] = PackedValue.pack(value, strings: &strings)
            }
        }
        return packed
    }

    // MARK: Purging

    /// Purges every observation older than ``PurgeOptions/maximumDuration`` at `now`.
    public mutating func purgeExpired(now: Int64, into events: inout [StoreEvent]) {
        guard let maximumAge = options.maximumAgeMilliseconds else { return }
        while let oldest = globallyOldest(), now - oldest.receivedAt > maximumAge {
            _ = purgeGloballyOldest(reason: .maximumDuration, into: &events)
        }
    }

    /// When the next observation will be old enough to purge (epoch ms), if any.
    public var nextExpiry: Int64? {
        guard let maximumAge = options.maximumAgeMilliseconds, let oldest = peekOldestReceivedAt() else { return nil }
        return oldest + maximumAge + 1
    }

    /// Empties the store without observation-purged events: one
    /// `entityPurged(…, cause: .purgeAll)` per entity, in entity-id order.
    public mutating func purgeAll(into events: inout [StoreEvent]) {
        let references = entities.compactMap { $0?.reference }.sorted { $0.entityID < $1.entityID }
        for reference in references { events.append(.entityPurged(reference, cause: .purgeAll)) }
        slotsByTrack = [:]
        entities = []
        freeSlots = []
        arrivals.removeAll()
        strings.removeAll()
        observationCount = 0
    }

    /// Removes the entity of `trackID` (a service `delete` message). Returns
    /// false when no such entity exists.
    @discardableResult
    public mutating func delete(trackID: AttributeValue, into events: inout [StoreEvent]) -> Bool {
        guard let slot = slotsByTrack[trackID], var entity = entities[slot] else { return false }
        let removed = entity.history.count
        observationCount -= removed
        removeEntity(slot: slot)
        entity.history.releaseAll(strings: &strings)
        for _ in 0..<removed { noteStaleArrival() }
        events.append(.entityPurged(entity.reference, cause: .deleted))
        return true
    }

    private mutating func noteStaleArrival() {
        guard arrivals.noteStale() else { return }
        let entities = self.entities
        arrivals.compact { slot, id in
            guard slot < entities.count, let entity = entities[slot], let oldest = entity.history.oldest else { return false }
            return ArrivalQueue.truncated(oldest.id) <= id && id <= ArrivalQueue.truncated(entity.latestID)
        }
    }

    /// Drops stale arrival entries and returns the oldest live observation.
    private mutating func globallyOldest() -> (slot: Int, receivedAt: Int64)? {
        while let front = arrivals.front {
            if let entity = entities.indices.contains(front.slot) ? entities[front.slot] : nil,
               let oldest = entity.history.oldest, ArrivalQueue.truncated(oldest.id) == front.id {
                return (front.slot, oldest.receivedAt)
            }
            arrivals.popFront()
            arrivals.staleEntryPopped()
        }
        return nil
    }

    private func peekOldestReceivedAt() -> Int64? {
        var copy = self
        return copy.globallyOldest()?.receivedAt
    }

    private mutating func purgeGloballyOldest(reason: PurgeReason, into events: inout [StoreEvent]) -> Bool {
        guard let oldest = globallyOldest() else { return false }
        arrivals.popFront()
        purgeOldest(ofSlot: oldest.slot, reason: reason, into: &events)
        return true
    }

    private mutating func purgeOldest(ofSlot slot: Int, reason: PurgeReason, into events: inout [StoreEvent]) {
        guard var entity = entities[slot] else { return }
        entities[slot] = nil
        guard let removed = entity.history.removeOldest(strings: &strings) else { return }
        observationCount -= 1
        events.append(.observationPurged(entity.reference, observationID: removed.id, receivedAt: removed.receivedAt, reason: reason))
        if entity.history.count == 0 {
            entities[slot] = entity
            removeEntity(slot: slot)
            events.append(.entityPurged(entity.reference, cause: .lastObservationPurged))
        } else {
            entities[slot] = entity
        }
    }

    private mutating func removeEntity(slot: Int) {
        guard let entity = entities[slot] else { return }
        slotsByTrack[entity.reference.trackID] = nil
        entities[slot] = nil
        freeSlots.append(slot)
    }

    // MARK: Reading

    /// Entities matching `query`, by entity id.
    public func query(_ query: EntityQuery) -> [EntitySnapshot] {
        var result: [EntitySnapshot] = []
        for case let entity? in entities {
            if let trackIDs = query.trackIDs, !trackIDs.contains(entity.reference.trackID) { continue }
            if let envelope = query.envelope {
                guard let point = entity.latest.geometry, envelope.contains(point) else { continue }
            }
            if let whereClause = query.whereClause, !whereClause.matches(entity.latest) { continue }
            result.append(EntitySnapshot(entity: entity.reference, observationCount: entity.history.count,
                                         latestObservationID: entity.latestID, latest: entity.latest))
        }
        return result.sorted { $0.entity.entityID < $1.entity.entityID }
    }

    /// The entity of `trackID`, if stored.
    public func entity(trackID: AttributeValue) -> EntitySnapshot? {
        guard let slot = slotsByTrack[trackID], let entity = entities[slot] else { return nil }
        return EntitySnapshot(entity: entity.reference, observationCount: entity.history.count,
                              latestObservationID: entity.latestID, latest: entity.latest)
    }

    /// Up to `maximum` observations of the entity of `trackID`, newest first
    /// (-1 = all), as the SDK's `observations(maximum:)`; empty when not stored.
    public func observations(trackID: AttributeValue, maximum: Int = -1) -> [(id: Int64, observation: Observation)] {
        guard let slot = slotsByTrack[trackID], let entity = entities[slot] else { return [] }
        return entity.history.observations(maximum: maximum, schemaWidth: schema.fields.count, strings: strings)
    }

    /// Distinct interned strings (for memory diagnostics).
    public var internedStringCount: Int { strings.count }
}
