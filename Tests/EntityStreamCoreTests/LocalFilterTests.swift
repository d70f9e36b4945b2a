import EntityStreamCore
import EntityStreamProjection
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double),
                                     Field(name: "heading", type: .double)], trackIDField: "id")
private let sandy = Point(x: -111.86, y: 40.57, wkid: 4326)
private let sandyMercator: Point = {
    let projected = ProjectionOracles.webMercator(longitude: sandy.x, latitude: sandy.y)
    return Point(x: projected.x, y: projected.y, wkid: 3857)
}()

private func observation(_ point: Point?, speed: Double = 30, heading: Double = 90) -> Observation {
    Observation(geometry: point, attributes: [.string("T1"), .double(speed), .double(heading)], receivedAt: 0)
}

@Suite("Local filter", .bounded)
struct LocalFilterTests {
    /// masked keeps the schema's alignment (excluded fields null); projected keeps only the kept fields.
    @Test func maskedAndProjectedShapes() throws {
        let filter = try LocalFilter(StreamFilter(outFields: ["heading"]), schema: schema)
        let original = observation(sandy)
        #expect(filter.masked(original).attributes == [.string("T1"), .null, .double(90)])
        #expect(filter.projected(original).attributes == [.string("T1"), .double(90)])
        #expect(filter.projectedSchema.fields.map(\.name) == ["id", "heading"])
        #expect(filter.projectedSchema.trackIDIndex == 0)
        #expect(throws: LocalFilterError.filter(.unknownOutField("colour", fields: ["id", "speed", "heading"]))) {
            try LocalFilter(StreamFilter(outFields: ["colour"]), schema: schema)
        }
    }

    /// outSR converts WGS84 to Web Mercator and back (expected metres from the spherical Mercator formula
    /// computed independently) and to any other reference PROJ knows (Oregon North feet, the Lambert
    /// formulas); a WKID PROJ does not know is refused up front, by name.
    @Test func outSRConverts() throws {
        let toMercator = try LocalFilter(StreamFilter(outSpatialReference: 3857), schema: schema)
        let converted = try #require(toMercator.masked(observation(sandy)).geometry)
        #expect(converted.wkid == 3857)
        #expect(abs(converted.x - (-12_452_198.24)) < 0.01 && abs(converted.y - 4_949_122.17) < 0.01)
        let toWGS84 = try LocalFilter(StreamFilter(outSpatialReference: 4326), schema: schema)
        let back = try #require(toWGS84.projected(observation(sandyMercator)).geometry)
        #expect(back.wkid == 4326 && abs(back.x - sandy.x) < 1e-9 && abs(back.y - sandy.y) < 1e-9)
        let portland = Point(x: -122.68, y: 45.52, wkid: 4152)
        let toFeet = try LocalFilter(StreamFilter(outSpatialReference: 2913), schema: schema)
        let feet = try #require(toFeet.masked(observation(portland)).geometry)
        let oracle = ProjectionOracles.oregonNorthFeet(longitude: -122.68, latitude: 45.52)
        #expect(feet.wkid == 2913 && abs(feet.x - oracle.x) < 0.01 && abs(feet.y - oracle.y) < 0.01)
        #expect {
            try LocalFilter(StreamFilter(outSpatialReference: 99999), schema: schema)
        } throws: { error in
            guard case LocalFilterError.filter(.outSpatialReferenceUnusable(.unknownSpatialReference(let name, _))) = error else { return false }
            return name.contains("99999")
        }
        #expect(try LocalFilter(StreamFilter(outSpatialReference: 4326), schema: schema, spatialReference: 4326).isPassThrough)
    }

    /// The envelope is tested in its own spatial reference, points without a wkid taken in the service's.
    @Test func envelopeAcrossSpatialReferences() throws {
        let wgs84Box = StreamFilter(geometry: Envelope(xmin: -112, ymin: 40.5, xmax: -111.8, ymax: 40.7, wkid: 4326))
        let filter = try LocalFilter(wgs84Box, schema: schema, spatialReference: 3857)
        #expect(filter.accepts(observation(sandy)))
        #expect(filter.accepts(observation(sandyMercator)))
        var unnamed = sandyMercator
        unnamed.wkid = nil
        #expect(filter.accepts(observation(unnamed)))
        #expect(!filter.accepts(observation(Point(x: 0, y: 0, wkid: 4326))))
        #expect(!filter.accepts(observation(nil)))
    }

    /// Query envelopes convert the entities' points too.
    @Test func storeQueryConverts() {
        var state = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        state.ingest(observation(sandyMercator), now: 0, into: &events)
        let box = Envelope(xmin: -112, ymin: 40.5, xmax: -111.8, ymax: 40.7, wkid: 4326)
        #expect(state.query(EntityQuery(envelope: box)).count == 1)
    }
}
