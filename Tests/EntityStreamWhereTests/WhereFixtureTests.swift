import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

/// Shared fixtures for the where-clause tests: a snowplow-like schema and
/// helpers to build rows and evaluate or reject clauses.
enum WhereFixture {
    /// Field indices: 0 vehiclename, 1 vehicletype, 2 agency, 3 speed, 4 heading,
    /// 5 point_x, 6 point_y, 7 lastupdate, 8 "speed limit", 9 payload (untyped), 10 objectid.
    static let schema = Schema(fields: [
        Field(name: "vehiclename", type: .string),
        Field(name: "vehicletype", type: .string),
        Field(name: "agency", type: .integer),
        Field(name: "speed", type: .double),
        Field(name: "heading", type: .double),
        Field(name: "point_x", type: .double),
        Field(name: "point_y", type: .double),
        Field(name: "lastupdate", type: .date),
        Field(name: "speed limit", type: .double),
        Field(name: "payload", type: .other("esriFieldTypeBlob")),
        Field(name: "objectid", type: .objectID),
    ], trackIDField: "vehiclename")

    /// 2024-03-01 12:00:00 UTC.
    static let march1Noon: Int64 = 1_709_294_400_000

    /// A typical plow: TRUCK 12, Plow, agency 3, speed 25.5, heading 90,
    /// (-77, 38.9), last update 2024-03-01 12:00:00Z, limit 35, no payload.
    static let plow: [String: AttributeValue] = [
        "vehiclename": .string("TRUCK 12"),
        "vehicletype": .string("Plow"),
        "agency": .int(3),
        "speed": .double(25.5),
        "heading": .double(90),
        "point_x": .double(-77),
        "point_y": .double(38.9),
        "lastupdate": .date(milliseconds: march1Noon),
        "speed limit": .double(35),
        "objectid": .int(1),
    ]

    /// An observation with `values` placed at their schema indices (others NULL).
    static func row(_ values: [String: AttributeValue]) -> Observation {
        var attributes = [AttributeValue](repeating: .null, count: schema.fields.count)
        for (name, value) in values {
            guard let index = schema.index(ofField: name) else {
                Issue.record("fixture names unknown field \(name)")
                continue
            }
            attributes[index] = value
        }
        return Observation(geometry: Point(x: 0, y: 0), attributes: attributes, receivedAt: 0)
    }

    /// The plow with some values replaced.
    static func plow(_ changes: [String: AttributeValue]) -> Observation {
        row(plow.merging(changes) { _, new in new })
    }

    /// Compiles `text` against the fixture schema and evaluates it on `row`.
    static func evaluate(_ text: String, _ row: Observation = row(plow)) throws -> SQLTruth {
        try WhereClause(text, schema: schema).evaluate(row)
    }

    /// The error `text` is rejected with, or nil if it compiles.
    static func error(_ text: String, schema: Schema = schema) -> WhereClauseError? {
        do {
            _ = try WhereClause(text, schema: schema)
            return nil
        } catch {
            return error
        }
    }
}

/// A minimal row type, to show any `AttributeRow` can be filtered.
struct WhereArrayRow: AttributeRow {
    var values: [AttributeValue]
    func value(at fieldIndex: Int) -> AttributeValue {
        fieldIndex >= 0 && fieldIndex < values.count ? values[fieldIndex] : .null
    }
}

@Suite("Where fixtures and row access", .bounded)
struct WhereFixtureTests {
    /// Observation conforms to AttributeRow and reads fields it does not carry as NULL.
    @Test func observationRowReadsMissingAsNull() throws {
        let short = Observation(geometry: nil, attributes: [.string("TRUCK 1")], receivedAt: 0)
        #expect(short.value(at: 0) == .string("TRUCK 1"))
        #expect(short.value(at: 3) == .null)
        let clause = try WhereClause("speed IS NULL AND vehiclename = 'TRUCK 1'", schema: WhereFixture.schema)
        #expect(clause.matches(short))
    }

    /// Any AttributeRow implementation can be evaluated, not just Observation.
    @Test func customRowType() throws {
        let clause = try WhereClause("agency = 3 AND speed > 10", schema: WhereFixture.schema)
        #expect(clause.evaluate(WhereArrayRow(values: [.null, .null, .int(3), .double(11)])) == .true)
        #expect(clause.evaluate(WhereArrayRow(values: [.null, .null, .int(3)])) == .unknown)
        #expect(clause.evaluate(WhereArrayRow(values: [])) == .unknown)
    }

    /// The fixture plow has the values the other tests assume.
    @Test func plowFixture() {
        let plow = WhereFixture.row(WhereFixture.plow)
        #expect(plow.value(at: 2) == .int(3))
        #expect(plow.value(at: 9) == .null)
    }
}
