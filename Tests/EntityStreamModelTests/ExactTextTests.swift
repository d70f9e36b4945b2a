import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

/// "é" as one scalar (U+00E9) and as "e" + U+0301: canonically equivalent
/// (Swift's `String ==` says equal), different stored text for SQL engines
/// and ArcGIS. The oracle is the scalars themselves, compared in the test.
private let composed = "\u{E9}"
private let decomposed = "e\u{301}"

private func scalars(_ value: AttributeValue) -> [UInt32]? {
    if case .string(let text) = value { return text.unicodeScalars.map(\.value) }
    return nil
}

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "k", type: .string), Field(name: "v", type: .integer)],
                            trackIDField: "id")

@Suite("Stored text compares by Unicode scalars: canonically equivalent spellings stay apart", .bounded)
struct ExactTextTests {
    @Test func premiseSwiftCallsThemEqual() {
        #expect(composed == decomposed, "the premise: Swift's String == is canonical equivalence")
        #expect(!composed.unicodeScalars.elementsEqual(decomposed.unicodeScalars))
    }

    @Test func attributeValuesAndSets() {
        #expect(AttributeValue.string(composed) != .string(decomposed))
        #expect(AttributeValue.string(composed) == .string("\u{E9}"))
        #expect(Set<AttributeValue>([.string(composed), .string(decomposed)]).count == 2)
        #expect(JoinKey(.string(composed)) != JoinKey(.string(decomposed)))
        #expect(Set([ExactText.Key(composed), ExactText.Key(decomposed), ExactText.Key("e\u{301}")]).count == 2)
        // Other cases keep their equality.
        #expect(AttributeValue.double(0) == .double(-0.0))
        #expect(Set<AttributeValue>([.double(0), .double(-0.0)]).count == 1)
        #expect(AttributeValue.int(1) != .double(1))
    }

    /// Two tracks, two stored values: each reads back with its own scalars; a
    /// where clause, an IN list and a track-id set on the store each pick one.
    @Test func storeKeepsBothSpellings() throws {
        var store = EntityStoreState(schema: schema, options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        var events: [StoreEvent] = []
        let rows: [(String, String, Int64)] = [(composed, composed, 1), (decomposed, decomposed, 2), (composed, decomposed, 4)]
        for (index, row) in rows.enumerated() {
            store.ingest(Observation(geometry: nil, attributes: [.string(row.0), .string(row.1), .int(row.2)], receivedAt: Int64(index)),
                         now: Int64(index), into: &events)
        }
        #expect(store.entityCount == 2, "two track ids")
        var stored: [(id: [UInt32]?, k: [UInt32]?, v: AttributeValue)] = []
        store.scan(ObservationScan()) { record in
            stored.append((scalars(record.value(at: 0)), scalars(record.value(at: 1)), record.value(at: 2)))
            return true
        }
        let expected = rows.map { (Array($0.0.unicodeScalars.map(\.value)), Array($0.1.unicodeScalars.map(\.value)), AttributeValue.int($0.2)) }
        #expect(stored.count == 3)
        for (got, want) in zip(stored.sorted { "\($0.v)" < "\($1.v)" }, expected) {
            #expect(got.id == want.0 && got.k == want.1 && got.v == want.2, "each value reads back with its own scalars")
        }
        func sum(_ scan: ObservationScan) -> Int64 {
            var total: Int64 = 0
            store.scan(scan) { record in
                if case .int(let v) = record.value(at: 2) { total += v }
                return true
            }
            return total
        }
        // The oracle: rows whose scalars equal the literal's.
        func expectedSum(_ keep: ((String, String, Int64)) -> Bool) -> Int64 { rows.filter(keep).reduce(0) { $0 + $1.2 } }
        func same(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }
        for (clause, keep) in [("k = '\(composed)'", { (r: (String, String, Int64)) in same(r.1, composed) }),
                               ("k = '\(decomposed)'", { same($0.1, decomposed) }),
                               ("k <> '\(composed)'", { !same($0.1, composed) }),
                               ("k IN ('\(decomposed)')", { same($0.1, decomposed) }),
                               ("k IN ('\(composed)', 'x')", { same($0.1, composed) }),
                               ("k NOT IN ('\(composed)')", { !same($0.1, composed) })] {
            #expect(sum(ObservationScan(whereClause: try WhereClause(clause, schema: schema))) == expectedSum(keep), "\(clause)")
        }
        #expect(sum(ObservationScan(trackIDs: [.string(decomposed)])) == expectedSum { same($0.0, decomposed) })
        #expect(scalars(try #require(store.entity(trackID: .string(decomposed))).entity.trackID) == decomposed.unicodeScalars.map(\.value))
    }

    /// A related table keyed by both spellings joins each observation to its own row.
    @Test func relatedJoinByScalars() throws {
        let related = Schema(fields: [Field(name: "k", type: .string), Field(name: "label", type: .string)])
        let table = try RelatedTable(schema: related, joinField: "k", rows: [[.string(composed), .string("one")], [.string(decomposed), .string("two")]])
        #expect(table.count == 2 && table.duplicateKeys == 0)
        #expect(table.row(for: .string(decomposed))?[1] == .string("two"))
        #expect(table.row(for: .string(composed))?[1] == .string("one"))
    }
}
