@testable import EntityStreamCore
@testable import EntityStream
import EntityStreamTestSupport
import Testing
@testable import EntityStreamModel

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

@Suite("Store memory follows what the store holds", .bounded)
struct StoreMemoryTests {
    /// With both a count limit and an age limit, thousands of batches that
    /// each move the oldest observation (count purging) do not start a timer
    /// each: one timer sleeps until the first expiry, and is started again
    /// only when it has fired. (Every restart used to leave a cancelled
    /// sleep pending until its deadline: memory grew with --max-duration.)
    @Test func countPurgingDoesNotMultiplyTimers() async {
        let clock = ManualClock()
        let bus = EventBus()
        let aged = Subscriber(name: "aged", filter: EventFilter(kinds: [.observationPurged]), capacity: 1 << 20)
        await bus.subscribe(aged)
        // Read while ingesting: the bus's queues are bounded in bytes, and the
        // count purges alone would fill this one (back-pressure then holds the store).
        let counting = Task {
            var agePurges = 0
            while agePurges < 100, let batch = await aged.next() {
                for event in batch {
                    if case .store(.observationPurged(_, _, _, .maximumDuration)) = event.payload { agePurges += 1 }
                }
            }
            return agePurges
        }
        let store = EntityStore(schema: schema, options: PurgeOptions(maximumDuration: 300, maximumObservations: 100), bus: bus, clock: clock)
        for batch in 0..<3_000 {
            await store.ingest((0..<5).map { index in
                .observation(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string("T\((batch * 5 + index) % 40)"), .double(1)],
                                         receivedAt: clock.now()))
            })
            clock.advance(by: 10)
        }
        #expect(await store.observationCount == 100)
        #expect(await store.timerStarts == 1)
        #expect(clock.sleeperCount == 1)
        // The timer still purges by age: 300 s after the last batch nothing is left.
        clock.advance(by: 300_001)
        let agePurges = await counting.value
        #expect(agePurges == 100)
        #expect(await store.observationCount == 0)
        await store.stop()
    }

    /// What the store's state keeps beside its observations (arrival
    /// entries, history records) stays proportional to what it holds while
    /// count purging runs for a long time, with or without an age limit:
    /// 50 tracks reporting every 600 ms for a simulated 10 minutes at a 2,500 cap.
    /// Each track makes 1,000 reports (eight 128-record chunks), and the 50,000
    /// ingests are over three times what the bounds below allow, so a state that
    /// kept purged entries or records fails them. (The cap stays 2,500: the
    /// arrival queue releases its consumed prefix 4,096 entries at a time, so
    /// its capacity is bounded by 4 × 2,500, not by a multiple of a small cap.)
    @Test(arguments: [0.0, 300.0]) func stateFootprintIsBoundedByTheCap(maximumDuration: Double) {
        let tracks = 50, cap = 2_500
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: maximumDuration, maximumObservations: cap))
        var events: [StoreEvent] = []
        let names = (0..<tracks).map { "TRUCK \($0)" }
        var now: Int64 = 0
        var largest = store.footprint
        for second in 0..<600 where second % 3 == 0 {
            for tick in 0..<10 {
                for track in stride(from: tick % 2, to: tracks, by: 2) {
                    events.removeAll(keepingCapacity: true)
                    store.ingest(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string(names[track]), .double(1)], receivedAt: now),
                                 now: now, into: &events)
                }
                now += 300
            }
            let footprint = store.footprint
            largest.arrivalEntries = max(largest.arrivalEntries, footprint.arrivalEntries)
            largest.arrivalCapacity = max(largest.arrivalCapacity, footprint.arrivalCapacity)
            largest.retainedRecords = max(largest.retainedRecords, footprint.retainedRecords)
        }
        #expect(store.observationCount == cap)
        #expect(largest.arrivalEntries <= cap)
        #expect(largest.arrivalCapacity <= 4 * cap)
        // A chunk holds at most 128 records of a track: at most one partly purged and one partly filled per track.
        #expect(largest.retainedRecords <= cap + 2 * 128 * tracks)
    }

    /// A store of 5,000 tracks holding one observation each allocates history words for about
    /// one record per track, not a whole 128-record chunk (12.8 KB per entity whatever the cap
    /// said), and its byte count stays within a few hundred bytes per entity beside that.
    @Test func oneObservationPerTrackCostsAboutOneRecord() {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: 0))
        var events: [StoreEvent] = []
        let tracks = 5_000
        for track in 0..<tracks {
            events.removeAll(keepingCapacity: true)
            store.ingest(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string("T\(track)"), .double(1)], receivedAt: 0),
                         now: 0, into: &events)
        }
        let footprint = store.footprint
        let stride = 4 + 2   // id, time, x, y, then two attributes
        #expect(store.entityCount == tracks)
        #expect(footprint.chunks == tracks)
        #expect(footprint.chunkWords <= tracks * stride * 2, "\(footprint.chunkWords) words")
        #expect(store.storeBytes <= tracks * 700, "\(store.storeBytes) bytes")
    }

    /// Memory is flat once the store is full: 125 tracks reporting round robin under a cap of
    /// 625 observations (five per track) for 600 rounds (each track starting a new chunk every
    /// 128) allocate no more history words in the last 300 rounds than in the 300 after the store
    /// filled, and at most four times the live records' words (each track's chunk used to keep its
    /// purged records until 128 had been appended, touching new pages as it went: 158 → 186 MB for
    /// `demo --vehicles 20000 --rate 5` after its store was full).
    @Test func memoryIsFlatOnceTheStoreIsFull() {
        let tracks = 125, cap = 625
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservations: cap))
        var events: [StoreEvent] = []
        let names = (0..<tracks).map { "TRUCK \($0)" }
        let stride = 4 + 2
        var wordsWhenFull = 0
        var largest = 0
        var now: Int64 = 0
        for round in 0..<600 {
            for name in names {
                events.removeAll(keepingCapacity: true)
                store.ingest(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string(name), .double(Double(round))], receivedAt: now),
                             now: now, into: &events)
                now += 1
            }
            let words = store.footprint.chunkWords
            if round >= 5 && round < 300 { wordsWhenFull = max(wordsWhenFull, words) }
            if round >= 300 { largest = max(largest, words) }
        }
        #expect(store.observationCount == cap)
        #expect(largest <= wordsWhenFull, "at most \(wordsWhenFull) words after the store filled, \(largest) later")
        #expect(largest <= 4 * cap * stride, "\(largest) words for \(cap) live records of \(stride) words")
        // Each track started a new chunk every 128 observations (four times): the emptied ones
        // leave its array, which keeps one or two (they stayed until 16 had piled up).
        #expect(store.footprint.chunks <= 2 * tracks, "\(store.footprint.chunks) chunks kept for \(tracks) tracks")
    }

    /// The byte budget purges the oldest observations first, with their own reason, until the store
    /// fits: observations each carrying a unique 10 KB text (which the count limit alone let grow
    /// without bound: 1.47 GB in 30 s) keep at most the budget's worth, the newest.
    @Test func byteBudgetPurgesOldestFirst() {
        let budget = 1 << 20
        let notes = Schema(fields: [Field(name: "id", type: .string), Field(name: "note", type: .string)], trackIDField: "id")
        var store = EntityStoreState(schema: notes, options: PurgeOptions(maximumObservations: 0, maximumStoreBytes: budget))
        var events: [StoreEvent] = []
        var purged: [Int64] = []
        for index in 0..<1_000 {
            events.removeAll(keepingCapacity: true)
            let text = String(repeating: Character(UnicodeScalar(UInt8(65 + index % 26))), count: 10_000) + "\(index)"
            store.ingest(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string("T\(index % 7)"), .string(text)], receivedAt: Int64(index)),
                         now: Int64(index), into: &events)
            for case .observationPurged(_, let id, _, let reason) in events {
                #expect(reason == .maximumStoreBytes)
                purged.append(id)
            }
        }
        // The texts alone: at most budget / 10,000 of them fit; the store keeps most of that.
        #expect(store.observationCount <= budget / 10_000, "\(store.observationCount) kept")
        #expect(store.observationCount >= budget / 10_000 / 2, "\(store.observationCount) kept")
        #expect(store.storeBytes <= budget)
        #expect(purged == (1...Int64(1_000 - store.observationCount)).map { $0 }, "oldest first, each once")
    }
}
