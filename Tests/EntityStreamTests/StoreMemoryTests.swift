@testable import EntityStreamCore
@testable import EntityStream
import EntityStreamTestSupport
import Testing

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
    /// 400 tracks reporting about every 300 ms for a simulated 10 minutes at a 5,000 cap.
    @Test(arguments: [0.0, 300.0]) func stateFootprintIsBoundedByTheCap(maximumDuration: Double) {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: maximumDuration, maximumObservations: 5_000))
        var events: [StoreEvent] = []
        let names = (0..<400).map { "TRUCK \($0)" }
        var now: Int64 = 0
        var largest = store.footprint
        for second in 0..<600 where second % 3 == 0 {
            for tick in 0..<10 {
                for track in stride(from: tick % 2, to: 400, by: 2) {
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
        #expect(store.observationCount == 5_000)
        #expect(largest.arrivalEntries <= 5_000)
        #expect(largest.arrivalCapacity <= 4 * 5_000)
        // A chunk holds at most 128 records of a track: at most one partly purged and one partly filled per track.
        #expect(largest.retainedRecords <= 5_000 + 2 * 128 * 400)
    }
}
