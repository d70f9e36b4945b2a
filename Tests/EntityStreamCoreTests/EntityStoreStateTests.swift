import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

/// A two-field schema: `id` (the track id) and `speed`.
private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

private func observation(_ track: String, speed: Double = 1, at time: Int64, x: Double = 0) -> Observation {
    Observation(geometry: Point(x: x, y: 0, wkid: 4326), attributes: [.string(track), .double(speed)], receivedAt: time)
}

/// Short labels for events, so whole sequences compare at a glance.
private func labels(_ events: [StoreEvent]) -> [String] {
    events.map { event in
        switch event {
        case .entityReceived(let ref, let id, _): return "received \(ref.entityID) #\(id)"
        case .observation(let ref, let id, _): return "obs \(ref.entityID) #\(id)"
        case .observationPurged(let ref, let id, _, let reason): return "purged \(ref.entityID) #\(id) \(reason.rawValue)"
        case .entityPurged(let ref, let cause): return "gone \(ref.entityID) \(cause.rawValue)"
        }
    }
}

@Suite("Entity store purging", .bounded)
struct EntityStoreStateTests {
    /// New track ids create entities with increasing runtime ids; every observation is reported.
    @Test func newTracksBecomeEntities() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)
        store.ingest(observation("B", at: 1), now: 1, into: &events)
        store.ingest(observation("A", at: 2), now: 2, into: &events)
        #expect(labels(events) == ["received 1 #1", "obs 1 #1", "received 2 #2", "obs 2 #2", "obs 1 #3"])
        #expect(store.entityCount == 2)
        #expect(store.observationCount == 3)
        #expect(store.observations(trackID: .string("A")).map(\.id) == [3, 1])
    }

    /// Age alone: observations older than maximumDuration go, oldest first, and a
    /// track whose last observation goes is purged.
    @Test func ageLimitPurgesOldestAndEmptiedEntities() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 10, maximumObservations: 0))
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)
        store.ingest(observation("B", at: 5_000), now: 5_000, into: &events)
        store.ingest(observation("A", at: 8_000), now: 8_000, into: &events)
        events = []
        store.purgeExpired(now: 10_000, into: &events)
        #expect(events.isEmpty, "exactly 10 s old is not older than 10 s")
        store.purgeExpired(now: 10_001, into: &events)
        #expect(labels(events) == ["purged 1 #1 maximumDuration"])
        events = []
        store.purgeExpired(now: 18_001, into: &events)
        #expect(labels(events) == ["purged 2 #2 maximumDuration", "gone 2 lastObservationPurged",
                                   "purged 1 #3 maximumDuration", "gone 1 lastObservationPurged"])
        #expect(store.entityCount == 0)
        #expect(store.observationCount == 0)
        #expect(store.nextExpiry() == nil)
    }

    /// Durations below one second become one second; zero is off.
    @Test func durationNormalisation() {
        #expect(PurgeOptions(maximumDuration: 0.2).maximumDuration == 1)
        #expect(PurgeOptions(maximumDuration: 0).maximumAgeMilliseconds == nil)
        #expect(PurgeOptions(maximumDuration: -3).maximumDuration == 0)
        #expect(PurgeOptions().maximumObservations == 100_000)
    }

    /// Total alone: beyond maximumObservations the globally oldest goes, whatever its track.
    @Test func totalLimitPurgesGloballyOldest() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: 3))
        var events: [StoreEvent] = []
        for (index, track) in ["A", "B", "A", "C"].enumerated() {
            store.ingest(observation(track, at: Int64(index)), now: Int64(index), into: &events)
        }
        #expect(labels(events).suffix(2) == ["obs 3 #4", "purged 1 #1 maximumObservations"])
        events = []
        store.ingest(observation("C", at: 4), now: 4, into: &events)
        #expect(labels(events) == ["obs 3 #5", "purged 2 #2 maximumObservations", "gone 2 lastObservationPurged"])
        #expect(store.observationCount == 3)
    }

    /// Per-track alone: each track keeps its newest N; other tracks are untouched.
    @Test func perTrackLimitKeepsNewestPerTrack() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: 0, maximumObservationsPerTrack: 2))
        var events: [StoreEvent] = []
        for time in 0..<5 { store.ingest(observation("A", at: Int64(time)), now: Int64(time), into: &events) }
        store.ingest(observation("B", at: 5), now: 5, into: &events)
        #expect(labels(events).filter { $0.hasPrefix("purged") } == [
            "purged 1 #1 maximumObservationsPerTrack", "purged 1 #2 maximumObservationsPerTrack",
            "purged 1 #3 maximumObservationsPerTrack"])
        #expect(store.observations(trackID: .string("A")).map(\.id) == [5, 4])
        #expect(store.observations(trackID: .string("B")).map(\.id) == [6])
    }

    /// All limits combined act independently, each removing the oldest it needs to.
    @Test func combinedLimitsActIndependently() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 100, maximumObservations: 4, maximumObservationsPerTrack: 2))
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)       // #1
        store.ingest(observation("A", at: 1_000), now: 1_000, into: &events) // #2
        store.ingest(observation("A", at: 2_000), now: 2_000, into: &events) // #3 evicts #1 (per track)
        store.ingest(observation("B", at: 3_000), now: 3_000, into: &events) // #4
        store.ingest(observation("C", at: 4_000), now: 4_000, into: &events) // #5: total 4, at the limit
        #expect(labels(events).filter { $0.hasPrefix("purged") } == ["purged 1 #1 maximumObservationsPerTrack"])
        events = []
        // #6: total 5 > 4 evicts the globally oldest (#2); #3 is now over 100 s old.
        store.ingest(observation("C", at: 102_500), now: 102_500, into: &events)
        #expect(labels(events) == ["obs 3 #6", "purged 1 #2 maximumObservations",
                                   "purged 1 #3 maximumDuration", "gone 1 lastObservationPurged"])
        events = []
        store.purgeExpired(now: 103_500, into: &events)
        #expect(labels(events) == ["purged 2 #4 maximumDuration", "gone 2 lastObservationPurged"])
        #expect(store.observationCount == 2)
    }

    /// purgeAll empties the store with one flagged entity-purged per entity and no observation-purged events.
    @Test func purgeAllReportsEntitiesOnly() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        for track in ["A", "B", "A"] { store.ingest(observation(track, at: 0), now: 0, into: &events) }
        events = []
        store.purgeAll(into: &events)
        #expect(labels(events) == ["gone 1 purgeAll", "gone 2 purgeAll"])
        #expect(store.entityCount == 0 && store.observationCount == 0)
        store.ingest(observation("A", at: 1), now: 1, into: &events)
        #expect(labels(events).suffix(2) == ["received 3 #4", "obs 3 #4"])
    }

    /// A track whose entity was purged comes back as a new entity with a new runtime id.
    @Test func purgedTrackReappearsAsNewEntity() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 1, maximumObservations: 0))
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)
        store.purgeExpired(now: 5_000, into: &events)
        events = []
        store.ingest(observation("A", at: 5_000), now: 5_000, into: &events)
        #expect(labels(events) == ["received 2 #2", "obs 2 #2"])
    }

    /// A delete message removes the entity and its history.
    @Test func deleteRemovesEntity() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: 2))
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)
        store.ingest(observation("B", at: 1), now: 1, into: &events)
        events = []
        #expect(store.delete(trackID: .string("A"), into: &events))
        #expect(!store.delete(trackID: .string("Z"), into: &events))
        #expect(labels(events) == ["gone 1 deleted"])
        store.ingest(observation("B", at: 2), now: 2, into: &events)
        store.ingest(observation("C", at: 3), now: 3, into: &events)
        #expect(labels(events).suffix(2) == ["obs 3 #4", "purged 2 #2 maximumObservations"])
    }

    /// Deleting the track that holds the oldest observations moves the next
    /// expiry to the oldest remaining one, and age purges then remove exactly
    /// the remaining observations, oldest first.
    @Test func expiryAfterDeleteFollowsRemainingObservations() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 10, maximumObservations: 0))
        var events: [StoreEvent] = []
        store.ingest(observation("A", at: 0), now: 0, into: &events)        // #1
        store.ingest(observation("A", at: 1_000), now: 1_000, into: &events) // #2
        store.ingest(observation("B", at: 2_000), now: 2_000, into: &events) // #3
        store.ingest(observation("C", at: 3_000), now: 3_000, into: &events) // #4
        #expect(store.nextExpiry() == 10_001)
        events = []
        store.delete(trackID: .string("A"), into: &events)
        #expect(store.nextExpiry() == 12_001)
        #expect(store.nextExpiry() == 12_001, "asking again changes nothing")
        store.purgeExpired(now: 12_000, into: &events)
        #expect(labels(events) == ["gone 1 deleted"])
        store.purgeExpired(now: 12_001, into: &events)
        #expect(labels(events) == ["gone 1 deleted", "purged 2 #3 maximumDuration", "gone 2 lastObservationPurged"])
        #expect(store.nextExpiry() == 13_001)
        store.purgeExpired(now: 13_001, into: &events)
        #expect(labels(events).suffix(2) == ["purged 3 #4 maximumDuration", "gone 3 lastObservationPurged"])
        #expect(store.nextExpiry() == nil)
        #expect(store.observationCount == 0)
    }

    /// Deletes whose stale arrival entries cross the compaction threshold
    /// (one of 2,000 observations, then hundreds of small ones, mixed with
    /// per-track purges) leave age purges removing exactly the observations
    /// still stored, oldest first.
    @Test func manyDeletesKeepAgePurgesExact() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 10, maximumObservations: 0,
                                                                           maximumObservationsPerTrack: 2_000))
        var events: [StoreEvent] = []
        var idsByTrack: [String: [Int64]] = [:]
        var time: Int64 = 0
        func add(_ track: String) {
            store.ingest(observation(track, at: time), now: time, into: &events)
            time += 1
            idsByTrack[track, default: []].append(time)   // ids count from 1, one per ingest
        }
        for index in 0..<2_500 {
            add("BIG")
            if index < 1_800 { add("S\(index % 600)") }
        }
        idsByTrack["BIG"] = Array(idsByTrack["BIG"]!.suffix(2_000))   // the per-track limit kept the newest
        let deleted = ["BIG"] + (0..<600).filter { $0 % 2 == 0 }.map { "S\($0)" }
        for track in deleted {
            #expect(store.delete(trackID: .string(track), into: &events))
            idsByTrack[track] = nil
        }
        let remaining = idsByTrack.values.flatMap { $0 }.sorted()
        #expect(store.observationCount == remaining.count)

        func purgedIDs(at now: Int64) -> [Int64] {
            events = []
            store.purgeExpired(now: now, into: &events)
            return events.compactMap { event -> Int64? in
                if case .observationPurged(_, let id, _, .maximumDuration) = event { return id }
                return nil
            }
        }
        // Observation #id was received at id - 1: at 12,000 those received before 2,000 have expired.
        #expect(purgedIDs(at: 12_000) == remaining.filter { $0 - 1 < 2_000 })
        #expect(store.nextExpiry() == remaining.first { $0 - 1 >= 2_000 }.map { $0 - 1 + 10_001 })
        #expect(purgedIDs(at: 100_000) == remaining.filter { $0 - 1 >= 2_000 })
        #expect(store.observationCount == 0)
        #expect(store.entityCount == 0)
    }

    /// The bus-event forms report the same events as the plain ones, each
    /// observation at its receive time and everything else at `now`.
    @Test func busEventFormsMatchStoreEvents() {
        let options = PurgeOptions(maximumDuration: 10, maximumObservations: 0)
        var plain = EntityStoreState(schema: schema, options: options)
        var bus = EntityStoreState(schema: schema, options: options)
        var storeEvents: [StoreEvent] = []
        var streamEvents: [StreamEvent] = []
        for (track, time) in [("A", Int64(0)), ("B", 1_000), ("C", 2_000), ("A", 3_000)] {
            plain.ingest(observation(track, at: time), now: time + 5, into: &storeEvents)
            bus.ingest(observation(track, at: time), now: time + 5, into: &streamEvents)
        }
        plain.delete(trackID: .string("B"), into: &storeEvents)
        bus.delete(trackID: .string("B"), now: 4_000, into: &streamEvents)
        plain.purgeExpired(now: 10_001, into: &storeEvents)
        bus.purgeExpired(now: 10_001, into: &streamEvents)
        plain.purgeAll(into: &storeEvents)
        bus.purgeAll(now: 20_000, into: &streamEvents)

        #expect(labels(storeEvents) == ["received 1 #1", "obs 1 #1", "received 2 #2", "obs 2 #2", "received 3 #3", "obs 3 #3",
                                        "obs 1 #4", "gone 2 deleted", "purged 1 #1 maximumDuration",
                                        "gone 1 purgeAll", "gone 3 purgeAll"])
        #expect(labels(streamEvents.compactMap { event -> StoreEvent? in
            if case .store(let change) = event.payload { return change } else { return nil }
        }) == labels(storeEvents))
        #expect(streamEvents.map(\.time) == [0, 0, 1_000, 1_000, 2_000, 2_000, 3_000, 4_000, 10_001, 20_000, 20_000])
    }

    /// Observations without a track id are refused, not stored.
    @Test func missingTrackIDIsRefused() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        let outcome = store.ingest(Observation(geometry: nil, attributes: [.null, .double(1)], receivedAt: 0), now: 0, into: &events)
        #expect(outcome == .missingTrackID)
        #expect(events.isEmpty)
    }

    /// History rebuilt from compact records equals what was ingested, strings, nulls, z/m and wide integers included.
    @Test func historyRoundTripsValues() throws {
        let wide = Schema(fields: [Field(name: "id", type: .string), Field(name: "n", type: .bigInteger),
                                   Field(name: "when", type: .date), Field(name: "flag", type: .other("boolean")),
                                   Field(name: "note", type: .string)], trackIDField: "id")
        var store = EntityStoreState(schema: wide, options: PurgeOptions())
        var events: [StoreEvent] = []
        let values: [Observation] = [
            Observation(geometry: Point(x: 1.5, y: -2.25, z: 30, m: 4, wkid: 3857),
                        attributes: [.string("T"), .int(Int64.max), .date(milliseconds: -86_400_000), .bool(true), .null], receivedAt: 10),
            Observation(geometry: nil, attributes: [.string("T"), .int(-5), .date(milliseconds: 1_700_000_000_000), .bool(false), .string("ü")], receivedAt: 11),
            Observation(geometry: Point(x: .nan, y: 0, wkid: 4326), attributes: [.string("T")], receivedAt: 12),
        ]
        for value in values { store.ingest(value, now: value.receivedAt, into: &events) }
        let history = store.observations(trackID: .string("T")).map(\.observation)
        try #require(history.count == 3)
        #expect(history[2] == values[0])
        #expect(history[1] == values[1])
        #expect(history[0].geometry?.x.isNaN == true)
        #expect(history[0].attributes.count == 1 || history[0].attributes.dropFirst().allSatisfy(\.isNull))
    }

    /// Queries match entities by where clause, envelope and track ids on their latest observation.
    @Test func queriesUseLatestObservation() throws {
        var store = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        store.ingest(observation("A", speed: 0, at: 0, x: 1), now: 0, into: &events)
        store.ingest(observation("B", speed: 5, at: 1, x: 2), now: 1, into: &events)
        store.ingest(observation("A", speed: 9, at: 2, x: 10), now: 2, into: &events)
        let fast = try WhereClause("speed > 3", schema: schema)
        #expect(store.query(EntityQuery(whereClause: fast)).map(\.entity.entityID) == [1, 2])
        #expect(store.query(EntityQuery(envelope: Envelope(xmin: 0, ymin: -1, xmax: 5, ymax: 1))).map(\.entity.entityID) == [2])
        #expect(store.query(EntityQuery(trackIDs: [.string("A")])).map(\.observationCount) == [2])
        #expect(store.query(EntityQuery(whereClause: fast, trackIDs: [.string("B")])).count == 1)
    }

    /// A long stream under a per-track limit keeps memory bounded: interned
    /// strings are freed with their observations.
    @Test func internedStringsAreFreed() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: 0, maximumObservationsPerTrack: 10))
        var events: [StoreEvent] = []
        let noted = Schema(fields: schema.fields + [Field(name: "note", type: .string)], trackIDField: "id")
        store.updateSchema(noted)
        for index in 0..<10_000 {
            events.removeAll(keepingCapacity: true)
            let value = Observation(geometry: nil, attributes: [.string("T\(index % 3)"), .double(1), .string("unique \(index)")], receivedAt: Int64(index))
            store.ingest(value, now: Int64(index), into: &events)
        }
        #expect(store.observationCount == 30)
        #expect(store.internedStringCount == 3 + 30)
    }

    /// A track alternating between points and null geometries (a layout change per observation) purges without trapping.
    @Test func alternatingLayoutsPurgeCleanly() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 5, maximumObservationsPerTrack: 3))
        var events: [StoreEvent] = []
        for time in 0..<200 {
            let geometry = time % 2 == 0 ? Point(x: 1, y: 2, wkid: 4326) : nil
            store.ingest(Observation(geometry: geometry, attributes: [.string(time % 3 == 0 ? "A" : "B"), .double(1)], receivedAt: Int64(time)),
                         now: Int64(time), into: &events)
        }
        #expect(store.observationCount == 5)
        #expect(store.observations(trackID: .string("A")).count + store.observations(trackID: .string("B")).count == 5)
    }
}
