import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

private let streamSchema = Schema(fields: [
    Field(name: "vehiclename", type: .string), Field(name: "speed", type: .double), Field(name: "depot", type: .string),
], trackIDField: "vehiclename")

private let relatedSchema = Schema(fields: [
    Field(name: "OBJECTID", type: .objectID), Field(name: "VehicleName", type: .string),
    Field(name: "Depot", type: .string), Field(name: "modelyear", type: .integer),
])

private func observation(_ values: [AttributeValue]) -> Observation {
    Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: values, receivedAt: 5)
}

@Suite("Buddy services: keepLatestArchive and relatedFeatures values", .bounded)
struct BuddyServicesTests {
    /// keepLatestArchive parses its documented shape; null or absent means none; a bad shape is a clear error.
    @Test func parsesKeepLatestArchive() throws {
        let archive = try KeepLatestArchive(json: try json(#"{"featuresUrl":"https://h/FeatureServer/0","maximumFeatureAge":0,"updateInterval":30}"#))
        #expect(archive == KeepLatestArchive(featuresURL: "https://h/FeatureServer/0", maximumFeatureAge: 0, updateInterval: 30))
        #expect(try KeepLatestArchive(json: .null) == nil)
        #expect(try KeepLatestArchive(json: nil) == nil)
        #expect(throws: ServiceDescriptionError.invalid("keepLatestArchive has no 'featuresUrl' string")) {
            try KeepLatestArchive(json: try json(#"{"maximumFeatureAge":0}"#))
        }
        #expect(throws: ServiceDescriptionError.self) { try KeepLatestArchive(json: .string("x")) }
    }

    /// relatedFeatures parses featuresUrl, joinField and outFields (list or array; * means all); missing members are errors.
    @Test func parsesRelatedFeatures() throws {
        let related = try RelatedFeatures(json: try json(#"{"featuresUrl":"u","joinField":"id","outFields":"a, b"}"#))
        #expect(related == RelatedFeatures(featuresURL: "u", joinField: "id", outFields: ["a", "b"]))
        #expect(try RelatedFeatures(json: try json(#"{"featuresUrl":"u","joinField":"id","outFields":["*"]}"#))?.outFields == nil)
        #expect(try RelatedFeatures(json: .null) == nil)
        #expect(throws: ServiceDescriptionError.invalid("relatedFeatures has no 'joinField' string")) {
            try RelatedFeatures(json: try json(#"{"featuresUrl":"u"}"#))
        }
    }

    /// A service description exposes both members through archive() and related().
    @Test func descriptionExposesBothMembers() throws {
        let text = #"{"streamUrls":[{"transport":"ws","urls":["ws://h/s"]}],"keepLatestArchive":{"featuresUrl":"a"},"relatedFeatures":{"featuresUrl":"r","joinField":"j"}}"#
        let description = try ServiceDescription(json: Array(text.utf8))
        #expect(try description.archive()?.featuresURL == "a")
        #expect(try description.related() == RelatedFeatures(featuresURL: "r", joinField: "j"))
    }

    /// Alignment moves values by field name (case-insensitive), types them for the target, and drops unknown fields.
    @Test func alignsByName() {
        let source = Schema(fields: [Field(name: "OBJECTID", type: .objectID), Field(name: "SPEED", type: .integer),
                                     Field(name: "VehicleName", type: .string)])
        let alignment = SchemaAlignment(from: source, to: streamSchema)
        #expect(alignment.unmatchedFields == ["OBJECTID"])
        let aligned = alignment.align(observation([.int(9), .int(12), .string("T1")]))
        #expect(aligned.attributes == [.string("T1"), .double(12), .null])
        #expect(aligned.geometry == Point(x: 1, y: 2, wkid: 4326) && aligned.receivedAt == 5)
    }

    /// The join appends related-only fields; the stream's own fields win; unmatched observations pass unchanged.
    @Test func joinsByJoinField() throws {
        let table = try RelatedTable(schema: relatedSchema, joinField: "vehiclename", rows: [
            [.int(1), .string("T1"), .string("North"), .int(2015)],
            [.int(2), .string("T1"), .string("South"), .int(2020)],   // a repeated key: the first row is kept
            [.int(3), .null, .string("East"), .int(2001)],          // no key: not indexed
        ])
        #expect(table.count == 1 && table.duplicateKeys == 1 && table.rowsWithoutKey == 1)
        let join = try RelatedFeatureJoin(streamSchema: streamSchema, table: table)
        #expect(join.joinedFieldNames == ["OBJECTID", "modelyear"])
        try #require(join.schema.fields.count == 5)
        #expect(join.schema.fields[3].type == .integer, "the related object id is an ordinary integer in the stream")
        var messages: [StreamMessage] = [
            .observation(observation([.string("T1"), .double(3), .string("Mine"), .null, .null])),
            .observation(observation([.string("T9"), .double(4), .null, .null, .null])),
            .filterReply(JSONObject()),
        ]
        #expect(join.join(&messages) == 1)
        #expect(messages[0] == .observation(observation([.string("T1"), .double(3), .string("Mine"), .int(1), .int(2015)])))
        #expect(messages[1] == .observation(observation([.string("T9"), .double(4), .null, .null, .null])))
        var short = observation([.string("T1")])
        #expect(join.join(&short))
        #expect(short.attributes == [.string("T1"), .null, .null, .int(1), .int(2015)])
    }

    /// Numeric join values match across integer, double and date types; strings only exactly.
    @Test func joinKeysCompareNumbersByValue() {
        #expect(JoinKey(.int(7)) == JoinKey(.double(7)))
        #expect(JoinKey(.date(milliseconds: 7)) == JoinKey(.int(7)))
        #expect(JoinKey(.string("7")) != JoinKey(.int(7)))
        #expect(JoinKey(.null) == nil)
    }

    /// A join field missing on either side is a clear error.
    @Test func missingJoinFieldIsAnError() throws {
        #expect(throws: RelatedFeaturesError.self) { try RelatedTable(schema: relatedSchema, joinField: "nope", rows: []) }
        let table = try RelatedTable(schema: relatedSchema, joinField: "depot", rows: [])
        let other = Schema(fields: [Field(name: "id", type: .string)])
        #expect(throws: RelatedFeaturesError.self) { try RelatedFeatureJoin(streamSchema: other, table: table) }
    }

    /// Primed observation events are written with "primed":true (Esri; GeoJSON "es_primed":true); live ones
    /// without the member (Esri) or false (GeoJSON, whose properties are the same on every feature).
    @Test func primedEventsCarryTheMember() throws {
        let entity = EntityReference(entityID: 1, trackID: .string("T1"))
        let stored = observation([.string("T1"), .double(3), .null])
        for format in [OutputFormat.esri, .geojson] {
            var formatter = JSONLinesFormatter(format: format, schema: streamSchema)
            var writer = JSONWriter(capacity: 256)
            formatter.append(StreamEvent(time: 5, payload: .store(.observation(entity, observationID: 1, stored)), primed: true), to: &writer)
            formatter.append(StreamEvent(time: 5, payload: .store(.observation(entity, observationID: 2, stored))), to: &writer)
            let lines = String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n")
            try #require(lines.count == 2)
            let primed = try JSONParser.parse(Array(lines[0].utf8))
            let live = try JSONParser.parse(Array(lines[1].utf8))
            let primedMember = format == .esri ? primed["primed"] : primed["properties"]?["es_primed"]
            let liveMember = format == .esri ? live["primed"] : live["properties"]?["es_primed"]
            #expect(primedMember == .bool(true))
            #expect(liveMember == (format == .esri ? nil : .bool(false)))
        }
    }
}
