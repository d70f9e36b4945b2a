import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures

/// Errors are classified by case (what went wrong, with the values that name it) and keep their messages,
/// which users read: each case and its text are written here by hand.
@Suite("Errors by case, with their messages", .bounded)
struct ErrorCaseTests {
    @Test func timeExtents() {
        // 2000-09-01 and 2000-09-22 at midnight UTC, epoch ms.
        let error = #expect(throws: TimeExtentError.endBeforeStart(start: 969_580_800_000, end: 967_766_400_000)) {
            try TimeExtent.parse("2000-09-22,2000-09-01")
        }
        #expect(error?.description == "the end 967766400000 is before the start 969580800000")
        #expect(throws: TimeExtentError.notAnExtent("1,2,3")) { try TimeExtent.parse("1,2,3") }
        #expect(throws: TimeExtentError.noComma("2000-09-01")) { try TimeExtent.parseArgument("2000-09-01") }
        #expect(throws: TimeExtentError.openAtBothEnds(",")) { try TimeExtent.parseArgument(",") }
        let ambiguous = #expect(throws: TimeExtentError.ambiguousDigits("20240310", milliseconds: 20_240_310, date: 1_710_028_800_000)) {
            try TimeExtent.parseArgument("1,20240310")
        }
        #expect(ambiguous?.description == "'20240310' is ambiguous: epoch milliseconds (1970-01-01T05:37:20.310Z) or the date 2024-03-10? "
                                         + "Write the date as 2024-03-10, or the instant in ISO-8601")
        #expect(throws: TimeExtentError.instant(.malformed("yesterday"))) { try TimeExtent.parse("yesterday,") }
    }

    /// A description answered as ArcGIS's error object is that error, read as every other REST answer is.
    @Test func serviceDescriptionArcGISError() {
        let error = #expect(throws: ServiceDescriptionError.arcGISError(ArcGISError(code: 498, message: "Invalid token.", details: ["expired"]))) {
            try ServiceDescription(json: Array(#"{"error":{"code":"498","message":"Invalid token.","details":["expired"]}}"#.utf8))
        }
        #expect(error?.description == "the service answered with ArcGIS error 498: Invalid token. (expired)")
        #expect(throws: ServiceDescriptionError.arcGISError(ArcGISError(code: nil, message: "busy"))) {
            try ServiceDescription(json: Array(#"{"error":{"message":"busy"}}"#.utf8))
        }
    }

    @Test func observationOrder() {
        let schema = Schema(fields: [Field(name: "speed", type: .double), Field(name: "name", type: .string)])
        let direction = #expect(throws: ObservationOrderError.invalidDirection(term: "speed SIDEWAYS", name: "speed")) {
            try ObservationOrder.parse("speed SIDEWAYS", schema: schema)
        }
        #expect(direction?.description == "orderBy term 'speed SIDEWAYS': expected ASC or DESC after 'speed'")
        let unknown = #expect(throws: ObservationOrderError.unknownField("gust", fields: ["speed", "name"])) {
            try ObservationOrder.parse("time, gust DESC", schema: schema)
        }
        #expect(unknown?.description == "orderBy: unknown field 'gust' (time, received, or one of speed, name)")
        #expect(throws: ObservationOrderError.malformedTerm("a b c")) { try ObservationOrder.parse("a b c", schema: schema) }
    }

    @Test func pagingProtocol() throws {
        let layer = LayerDescription(id: 0, name: "Points", type: "Feature Layer", geometryType: "esriGeometryPoint", objectIDField: "OBJECTID",
                                     fields: [], spatialReference: 4326)
        var pager = FeatureQueryPager(query: FeatureQuery(), layer: layer)
        let error = #expect(throws: FeatureQueryPagerError.unexpectedFeatures) { try pager.received(featureCount: 1, exceededTransferLimit: false) }
        #expect(error?.description == "features arrived when none were asked for")
        try pager.received(objectIDs: [])   // the ids it waits for (none match): the query is done
        #expect(throws: FeatureQueryPagerError.unexpectedObjectIDs) { try pager.received(objectIDs: [1]) }
    }

    @Test func relatedFeatures() throws {
        let schema = Schema(fields: [Field(name: "Depot", type: .string), Field(name: "year", type: .integer)])
        let error = #expect(throws: RelatedFeaturesError.noJoinFieldInRelated("nope", fields: ["Depot", "year"])) {
            try RelatedTable(schema: schema, joinField: "nope", rows: [])
        }
        #expect(error?.description == "the related features have no join field 'nope' (fields: Depot, year)")
        let table = try RelatedTable(schema: schema, joinField: "Depot", rows: [])
        #expect(throws: RelatedFeaturesError.noJoinFieldInStream("Depot", fields: ["id"])) {
            try RelatedFeatureJoin(streamSchema: Schema(fields: [Field(name: "id", type: .string)]), table: table)
        }
    }
}
