import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

/// Tracks with a data time (`t`, a date) and an interval end (`t2`), a speed and a name.
private let schema = Schema(
    fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "t2", type: .date),
             Field(name: "speed", type: .double), Field(name: "name", type: .string)],
    trackIDField: "id", startTimeField: "t", endTimeField: "t2")

/// One random observation; `t` is sometimes null, `t2` sometimes missing.
private func randomObservation(_ random: inout SplitMix64, receivedAt: Int64) -> Observation {
    let track = "T\(random.next(below: 12))"
    let start: AttributeValue = random.chance(0.05) ? .null : .date(milliseconds: Int64(random.next(below: 10_000)))
    var end: AttributeValue = .null
    if case .date(let s) = start, random.chance(0.3) { end = .date(milliseconds: s + Int64(random.next(below: 500))) }
    let speed: AttributeValue = random.chance(0.1) ? .null : .double(random.uniform(0, 100).rounded())
    let point = random.chance(0.05) ? nil : Point(x: random.uniform(-10, 10), y: random.uniform(-10, 10), wkid: 4326)
    return Observation(geometry: point, attributes: [.string(track), start, end, speed, .string(random.chance(0.5) ? "plow" : "truck")],
                       receivedAt: receivedAt)
}

/// The test's own reading of ArcGIS's time semantics, written independently of the store.
private func bruteForceMatches(_ observation: Observation, _ scan: ObservationScan) -> Bool {
    let extent = scan.timeExtent
    if extent.start != nil || extent.end != nil {
        let from: Int64, to: Int64
        switch scan.timeKey {
        case .received:
            (from, to) = (observation.receivedAt, observation.receivedAt)
        case .field(let startIndex, let endIndex):
            guard case .date(let s) = observation.attribute(startIndex) else { return false }
            var e = s
            if let endIndex, case .date(let value) = observation.attribute(endIndex) { e = max(value, s) }
            (from, to) = (s, e)
        }
        if let start = extent.start, to < start { return false }
        if let end = extent.end, from > end { return false }
    }
    if let envelope = scan.envelope {
        guard let p = observation.geometry, p.x >= envelope.xmin, p.x <= envelope.xmax, p.y >= envelope.ymin, p.y <= envelope.ymax else { return false }
    }
    if let trackIDs = scan.trackIDs, !trackIDs.contains(observation.attribute(0)) { return false }
    if let whereClause = scan.whereClause, !whereClause.matches(observation) { return false }
    return true
}

@Suite("Store scans: observations by time extent, where clause, envelope and track", .bounded)
struct StoreScanTests {
    /// Random extents, clauses, envelopes and track sets select exactly what a brute-force filter selects.
    @Test func scanEqualsBruteForce() throws {
        var random = SplitMix64(seed: 42)
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        var kept: [Int64: Observation] = [:]
        var events: [StoreEvent] = []
        for index in 0..<5_000 {
            let observation = randomObservation(&random, receivedAt: Int64(index * 3))
            events.removeAll()
            store.ingest(observation, now: observation.receivedAt, into: &events)
            for case .observation(_, let id, let stored) in events { kept[id] = stored }
        }
        let clauses = [nil, "speed > 50", "name = 'plow' AND speed BETWEEN 10 AND 60", "speed IS NULL",
                       "name IN ('truck', 'nobody') OR NOT speed < 90", "name <> 'plow' AND t IS NOT NULL", "name LIKE 'pl%' AND speed >= 50.0",
                       "t > date '1970-01-01 00:00:05'", "speed = 7 OR name IN ('plow', NULL)", "name > 'q'", "speed * 2 > 100"]
        for round in 0..<110 {
            var scan = ObservationScan()
            let a = Int64(random.next(below: 16_000)) - 1_000, b = a + Int64(random.next(below: 4_000))
            switch round % 4 {
            case 0: scan.timeExtent = try TimeExtent(start: a, end: b)
            case 1: scan.timeExtent = try TimeExtent(start: nil, end: b)
            case 2: scan.timeExtent = try TimeExtent(start: a, end: nil)
            default: scan.timeExtent = try TimeExtent(start: a, end: a)
            }
            scan.timeKey = round % 3 == 0 ? .received : .automatic(for: schema)
            if let text = clauses[round % clauses.count] { scan.whereClause = try WhereClause(text, schema: schema) }
            if round % 5 == 0 { scan.envelope = Envelope(xmin: -5, ymin: -5, xmax: 3, ymax: 4, wkid: 4326) }
            if round % 7 == 0 { scan.trackIDs = [.string("T1"), .string("T5"), .string("nobody")] }
            var found: [Int64] = []
            store.scan(scan) { record in
                #expect(record.observation() == kept[record.id], "the view reads back what was stored")
                found.append(record.id)
                return true
            }
            let expected = kept.filter { bruteForceMatches($0.value, scan) }.keys.sorted()
            #expect(found.sorted() == expected, "round \(round)")
            #expect(store.count(scan) == expected.count)
        }
    }

    /// Observations at exactly the start or the end are included; instants, open ends and intervals overlap as ArcGIS says.
    @Test func boundariesAndIntervals() throws {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        var events: [StoreEvent] = []
        let rows: [(String, Int64, Int64?)] = [("A", 100, nil), ("B", 200, nil), ("C", 150, 400), ("D", 50, 99), ("E", 401, nil)]
        for (index, row) in rows.enumerated() {
            store.ingest(Observation(geometry: nil, attributes: [.string(row.0), .date(milliseconds: row.1),
                                                                 row.2.map { .date(milliseconds: $0) } ?? .null, .null, .null],
                                     receivedAt: Int64(index)), now: Int64(index), into: &events)
        }
        func tracks(_ extent: TimeExtent) -> [String] {
            var found: [String] = []
            store.scan(ObservationScan(timeExtent: extent, timeKey: .automatic(for: schema))) { record in
                if case .string(let name) = record.value(at: 0) { found.append(name) }
                return true
            }
            return found.sorted()
        }
        #expect(tracks(try TimeExtent(start: 100, end: 200)) == ["A", "B", "C"])
        #expect(tracks(try TimeExtent(start: 400, end: 400)) == ["C"], "an interval ending at the instant overlaps it")
        #expect(tracks(try TimeExtent(start: 99, end: 99)) == ["D"])
        #expect(tracks(try TimeExtent(start: 401, end: nil)) == ["E"])
        #expect(tracks(try TimeExtent(start: nil, end: 49)) == [])
        #expect(tracks(.unbounded) == ["A", "B", "C", "D", "E"])
    }

    /// Purged observations are gone from scans; the scan stops when the visitor says so.
    @Test func purgedObservationsAreNotScanned() throws {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0, maximumObservationsPerTrack: 2))
        var events: [StoreEvent] = []
        for time in 0..<10 {
            store.ingest(Observation(geometry: nil, attributes: [.string("A"), .date(milliseconds: Int64(time)), .null, .null, .null],
                                     receivedAt: Int64(time)), now: Int64(time), into: &events)
        }
        var times: [Int64] = []
        store.scan(ObservationScan()) { record in
            times.append(record.receivedAt)
            return true
        }
        #expect(times == [8, 9])
        var visits = 0
        store.scan(ObservationScan()) { _ in
            visits += 1
            return false
        }
        #expect(visits == 1)
    }

    /// A copy of the state is a consistent snapshot: ingesting into the original does not change what the copy scans.
    @Test func copiesAreSnapshots() {
        var random = SplitMix64(seed: 7)
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 300))
        var events: [StoreEvent] = []
        for index in 0..<1_000 { store.ingest(randomObservation(&random, receivedAt: Int64(index)), now: Int64(index), into: &events) }
        let snapshot = store
        var before: [Int64] = []
        snapshot.scan(ObservationScan()) { before.append($0.id); return true }
        for index in 1_000..<2_000 { store.ingest(randomObservation(&random, receivedAt: Int64(index)), now: Int64(index), into: &events) }
        var after: [Int64] = []
        snapshot.scan(ObservationScan()) { after.append($0.id); return true }
        #expect(before == after)
        #expect(before.count == 300)
        var live: [Int64] = []
        store.scan(ObservationScan()) { live.append($0.id); return true }
        #expect(Set(live).isDisjoint(with: before), "the live store has moved on")
    }

    /// Ordered and limited queries (both the key-first path and the field-sort path) equal a sort of the brute-force matches.
    @Test func orderedLimitedQueriesEqualBruteForce() throws {
        var random = SplitMix64(seed: 9)
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        var kept: [(id: Int64, observation: Observation)] = []
        var events: [StoreEvent] = []
        for index in 0..<3_000 {
            events.removeAll()
            store.ingest(randomObservation(&random, receivedAt: Int64(index / 3)), now: 0, into: &events)
            for case .observation(_, let id, let stored) in events { kept.append((id, stored)) }
        }
        let scan = ObservationScan(timeExtent: try TimeExtent(start: 1_000, end: 8_000), timeKey: .automatic(for: schema),
                                   whereClause: try WhereClause("speed > 20", schema: schema))
        let matches = kept.filter { bruteForceMatches($0.observation, scan) }
        func start(_ o: Observation) -> Int64 { if case .date(let t) = o.attribute(1) { return t }; return .min }
        func speed(_ o: Observation) -> Double { o.attribute(3).doubleValue ?? -1 }
        let byTimeDesc = matches.sorted { (start($0.observation), $1.id) > (start($1.observation), $0.id) }
        let byTime = try ObservationQuery(scan: scan, order: ObservationOrder.parse("time DESC", schema: schema), limit: 25).run(on: store.contents)
        #expect(byTime.matched == matches.count)
        #expect(byTime.rows.map(\.id) == byTimeDesc.prefix(25).map(\.id))
        let bySpeed = matches.sorted { (speed($0.observation), $0.id) < (speed($1.observation), $1.id) }
        let speedQuery = ObservationQuery(scan: scan, order: try ObservationOrder.parse("speed", schema: schema), limit: 40, outFields: [3])
        let result = try speedQuery.run(on: store.contents)
        #expect(result.rows.map(\.id) == bySpeed.prefix(40).map(\.id))
        #expect(result.rows.allSatisfy { $0.observation.attributes.count == 1 })
        let received = try ObservationQuery(scan: scan, order: ObservationOrder.parse("received DESC, time", schema: schema), limit: 10).run(on: store.contents)
        let byReceived = matches.sorted { ($0.observation.receivedAt, start($1.observation), $1.id) > ($1.observation.receivedAt, start($0.observation), $0.id) }
        #expect(received.rows.map(\.id) == byReceived.prefix(10).map(\.id))
    }

    /// Two copies of a store that both go on ingesting stay independent values (shared history chunks are copied on write).
    @Test func divergingCopiesStayIndependent() {
        var random = SplitMix64(seed: 11)
        var first = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        var events: [StoreEvent] = []
        var firstKept: [Int64: Observation] = [:]
        for index in 0..<500 {
            events.removeAll()
            first.ingest(randomObservation(&random, receivedAt: Int64(index)), now: 0, into: &events)
            for case .observation(_, let id, let stored) in events { firstKept[id] = stored }
        }
        var second = first
        var secondKept = firstKept
        for index in 500..<900 {
            events.removeAll()
            first.ingest(randomObservation(&random, receivedAt: Int64(index)), now: 0, into: &events)
            for case .observation(_, let id, let stored) in events { firstKept[id] = stored }
            events.removeAll()
            second.ingest(randomObservation(&random, receivedAt: Int64(index)), now: 0, into: &events)
            for case .observation(_, let id, let stored) in events { secondKept[id] = stored }
        }
        for (store, kept) in [(first, firstKept), (second, secondKept)] {
            var seen: [Int64: Observation] = [:]
            store.scan(ObservationScan()) { seen[$0.id] = $0.observation(); return true }
            #expect(seen == kept)
        }
    }
}
