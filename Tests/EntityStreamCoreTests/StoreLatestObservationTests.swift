import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("The store's latest observation per entity", .bounded)
struct StoreLatestObservationTests {
    /// Whatever an observation carries (strings repeated or new, wide
    /// integers, dates, booleans, nulls, doubles, fewer or more attributes
    /// than the one before, z and m or none, another wkid, no geometry), the
    /// entity's latest observation, read through `entity(trackID:)`,
    /// `query(_:)` and `contents.latestObservations`, is exactly the last
    /// one ingested for its track, while older ones are purged.
    @Test(arguments: [UInt64(5), 6, 7])
    func latestIsTheLastIngested(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "name", type: .string),
                                     Field(name: "n", type: .bigInteger), Field(name: "x", type: .double),
                                     Field(name: "when", type: .date)], trackIDField: "id")
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumObservationsPerTrack: 3))
        var expected: [AttributeValue: Observation] = [:]
        var events: [StoreEvent] = []
        let names = ["a", "b", "a much longer name than a small string holds", "é"]
        for step in 0..<2000 {
            let track = AttributeValue.string("T\(random.next() % 6)")
            let values: [AttributeValue] = [
                track,
                random.next() % 3 == 0 ? .null : .string(names[Int(random.next() % UInt64(names.count))] + (random.next() % 2 == 0 ? "" : "\(step)")),
                .int(random.next() % 2 == 0 ? Int64(step) : Int64.max - Int64(step)),
                random.next() % 4 == 0 ? .bool(step % 2 == 0) : .double(Double(step) / 7 - 100),
                .date(milliseconds: 1_700_000_000_000 + Int64(step)),
            ]
            let attributes = Array(values.prefix(3 + Int(random.next() % 3)))
            let geometry: Point?
            switch random.next() % 4 {
            case 0: geometry = nil
            case 1: geometry = Point(x: Double(step), y: -Double(step), z: 5, m: Double(step) / 2, wkid: 4326)
            case 2: geometry = Point(x: 1.5, y: 2.5, wkid: 3857)
            default: geometry = Point(x: -Double(step) / 3, y: 40, wkid: 4326)
            }
            let observation = Observation(geometry: geometry, attributes: attributes, receivedAt: Int64(step))
            store.ingest(observation, now: Int64(step), into: &events)
            expected[track] = observation
            if step % 37 == 0 { check(store, expected) }
        }
        check(store, expected)
    }

    private func check(_ store: EntityStoreState, _ expected: [AttributeValue: Observation]) {
        for (track, observation) in expected {
            #expect(store.entity(trackID: track)?.latest == observation, "\(track)")
        }
        let queried = store.query(EntityQuery())
        #expect(queried.count == expected.count)
        for snapshot in queried { #expect(snapshot.latest == expected[snapshot.entity.trackID]) }
        var visited = 0
        store.contents.latestObservations(matching: EntityQuery()) { snapshot in
            visited += 1
            #expect(snapshot.latest == expected[snapshot.entity.trackID])
            return true
        }
        #expect(visited == expected.count)
    }
}
