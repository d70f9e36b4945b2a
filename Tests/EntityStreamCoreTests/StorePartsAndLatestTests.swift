import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamFiles

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "speed", type: .double)],
                            trackIDField: "id", startTimeField: "t")

/// A store of `count` observations over tracks of very different lengths (track k gets about k² observations), with purges.
private func store(_ count: Int, seed: UInt64) -> (EntityStoreState, [Int64: Observation]) {
    var random = SplitMix64(seed: seed)
    var state = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: count * 3 / 4))
    var kept: [Int64: Observation] = [:]
    var events: [StoreEvent] = []
    for index in 0..<count {
        let track = Int((random.uniform(0, 1) * random.uniform(0, 1)) * 40)
        let observation = Observation(geometry: Point(x: Double(track), y: 0, wkid: 4326),
                                      attributes: [.string("T\(track)"), .date(milliseconds: Int64(index)), .double(Double(random.next(below: 100)))],
                                      receivedAt: Int64(index))
        events.removeAll()
        state.ingest(observation, now: Int64(index), into: &events)
        for event in events {
            switch event {
            case .observation(_, let id, let stored), .entityReceived(_, let id, let stored): kept[id] = stored
            case .observationPurged(_, let id, _, _): kept[id] = nil
            default: break
            }
        }
    }
    return (state, kept)
}

@Suite("Store: scans in parts, and the entities' latest observations", .bounded)
struct StorePartsAndLatestTests {
    /// For any number of parts, the parts together visit exactly the observations one scan visits, each once, and split them roughly evenly.
    @Test(arguments: [1, 2, 3, 5, 64])
    func partsCoverTheScanOnce(parts: Int) throws {
        let (state, kept) = store(6_000, seed: UInt64(parts))
        let contents = state.contents
        let scan = ObservationScan(whereClause: try WhereClause("speed >= 10", schema: schema))
        var whole: [Int64] = []
        contents.scan(scan) { whole.append($0.id); return true }
        var pieces: [[Int64]] = []
        for part in 0..<parts {
            var ids: [Int64] = []
            contents.scan(scan, part: part, of: parts) { ids.append($0.id); return true }
            pieces.append(ids)
        }
        #expect(pieces.flatMap { $0 } == whole, "parts in order are the whole scan in order")
        #expect(Set(whole) == Set(kept.filter { ($0.value.attribute(2).doubleValue ?? 0) >= 10 }.keys))
        var outside: [Int64] = []
        contents.scan(scan, part: parts, of: parts) { outside.append($0.id); return true }
        #expect(outside.isEmpty)
        if parts == 2 {
            // Entities are whole, so the split is only roughly even: no part holds more than 3/4 of the store.
            #expect(pieces.allSatisfy { $0.count < whole.count * 3 / 4 }, "\(pieces.map(\.count))")
        }
    }

    /// The latest observation of each entity matches the where clause, envelope, track ids and time extent as the test computes them from what it ingested.
    @Test func latestObservationsMatchAsQueried() throws {
        let (state, kept) = store(3_000, seed: 5)
        var latest: [String: (id: Int64, observation: Observation)] = [:]
        for (id, observation) in kept {
            guard case .string(let track) = observation.attribute(0) else { continue }
            if latest[track].map({ $0.id < id }) ?? true { latest[track] = (id, observation) }
        }
        let query = EntityQuery(whereClause: try WhereClause("speed < 70", schema: schema),
                                envelope: Envelope(xmin: 2, ymin: -1, xmax: 30, ymax: 1, wkid: 4326))
        let extent = try TimeExtent(start: 2_000, end: nil)
        var found: [String: Int64] = [:]
        var previous: Int64 = 0
        let visited = state.contents.latestObservations(matching: query, timeExtent: extent, timeKey: .automatic(for: schema)) { entity in
            #expect(entity.entity.entityID > previous, "in entity-id order")
            previous = entity.entity.entityID
            if case .string(let track) = entity.latest.attribute(0) { found[track] = entity.latestObservationID }
            return true
        }
        let expected = latest.filter { _, entry in
            let o = entry.observation
            guard let speed = o.attribute(2).doubleValue, speed < 70, let x = o.geometry?.x, x >= 2, x <= 30,
                  case .date(let t) = o.attribute(1), t >= 2_000 else { return false }
            return true
        }.mapValues(\.id)
        #expect(found == expected)
        #expect(visited == expected.count && !expected.isEmpty)
        var first = 0
        state.contents.latestObservations(matching: EntityQuery()) { _ in first += 1; return false }
        #expect(first == 1)
    }
}

@Suite("CSV text (RFC 4180)", .bounded)
struct CSVTextTests {
    /// Fields are quoted exactly when they must be, quotes doubled, records end with CRLF; the reader reads the text back to the same fields.
    @Test func quotingRoundTrips() throws {
        let fields = ["plain", "a,b", #"say "hi""#, "two\nlines", "cr\rhere", " lead", "trail ", "", "é ünïcode", "-1.5"]
        let text = CSVText.record(fields) + CSVText.record(["x", "y"])
        #expect(text == "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",\" lead\",\"trail \",\"\",é ünïcode,-1.5\r\nx,y\r\n")
        #expect(try CSVReader.records(text).map(\.fields) == [fields, ["x", "y"]])
    }

    /// Null and the empty string are told apart both ways: written as an
    /// empty cell and `""`, read back as null and "" (as DuckDB and
    /// PostgreSQL read CSV), in text columns of a loaded file too.
    @Test func nullAndEmptyStringRoundTrip() throws {
        let row: [JSONValue] = [.null, .string(""), .string("a"), .int(3), .null]
        let text = CSVText.record(values: row)
        #expect(text == ",\"\",a,3,\r\n")
        let record = try #require(try CSVReader.records(text).first)
        #expect(record.fields == ["", "", "a", "3", ""])
        #expect(record.quotedBlankFields == [1])
        #expect(CSVColumnTypeInference.value(record.fields[0], type: .string, quoted: record.isQuotedBlank(0)) == .null)
        #expect(CSVColumnTypeInference.value(record.fields[1], type: .string, quoted: record.isQuotedBlank(1)) == .string(""))
        #expect(CSVColumnTypeInference.value(" ", type: .string, quoted: true) == .string(" "))
        #expect(CSVColumnTypeInference.value("", type: .integer, quoted: true) == .null, "no empty number")
        let table = try FeatureFile.load(bytes: Array("name,n\n\"\",1\n,2\nx,3\n".utf8), fileName: "t.csv")
        let name = try #require(table.schema.index(ofField: "name"))
        #expect((0..<table.count).map { table.value(row: $0, field: name) } == [.string(""), .null, .string("x")])
    }

    /// Cells: null is empty, strings are their text, numbers as JSON writes them.
    @Test func cells() {
        #expect(CSVText.cell(.null) == "")
        #expect(CSVText.cell(.string("a\"b")) == "a\"b")
        #expect(CSVText.cell(.int(58)) == "58")
        #expect(CSVText.cell(.double(0.1 + 0.2)) == "0.30000000000000004")
        #expect(CSVText.cell(.double(2)) == "2.0")
        #expect(CSVText.cell(.bool(true)) == "true")
    }
}
