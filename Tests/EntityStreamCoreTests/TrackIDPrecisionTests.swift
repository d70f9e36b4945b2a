import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("Track ids keep the service's precision", .bounded)
struct TrackIDPrecisionTests {
    private func decodeTrackIDs(_ ids: [String], type: FieldType) throws -> [AttributeValue] {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "id", type: type), Field(name: "v", type: type)], trackIDField: "id"))
        var output: [StreamMessage] = []
        for id in ids {
            try decoder.decode(#"{"geometry":{"x":1,"y":2},"attributes":{"id":\#(id),"v":\#(id)}}"#, receivedAt: 0, into: &output)
        }
        return output.compactMap { $0.carriedObservation?.attribute(0) }
    }

    /// Integer ids beyond Int64 that round to the same double keep their text,
    /// so two vessels stay two entities; smaller ids stay integers.
    @Test(arguments: [FieldType.integer, .double, .string, .other("unknown")])
    func idsBeyondInt64KeepTheirText(type: FieldType) throws {
        let ids = try decodeTrackIDs(["123456789012345678901", "123456789012345678902", "-99999999999999999999", "42"], type: type)
        #expect(ids[0] == .string("123456789012345678901"))
        #expect(ids[1] == .string("123456789012345678902"))
        #expect(ids[2] == .string("-99999999999999999999"))
        #expect(ids[3] == (type == .double ? .double(42) : .int(42)))
        var store = EntityStoreState(schema: Schema(fields: [Field(name: "id", type: type)], trackIDField: "id"), options: PurgeOptions())
        var events: [StoreEvent] = []
        for id in ids { store.ingest(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [id], receivedAt: 0), now: 0, into: &events) }
        #expect(store.entityCount == 4)
    }

    /// A float-typed track field keeps an integer id that a double cannot hold
    /// exactly (2⁵³ + 1 and 2⁵³ would merge); other attributes follow the field type.
    @Test func floatTrackFieldKeepsInexactIntegers() throws {
        let ids = try decodeTrackIDs(["9007199254740993", "9007199254740992", "5", "5.0"], type: .double)
        #expect(ids == [.int(9_007_199_254_740_993), .double(9_007_199_254_740_992), .double(5), .double(5)])
        var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "id", type: .string), Field(name: "v", type: .double)], trackIDField: "id"))
        var output: [StreamMessage] = []
        try decoder.decode(#"{"attributes":{"id":"a","v":9007199254740993}}"#, receivedAt: 0, into: &output)
        #expect(output.first?.carriedObservation?.attribute(1) == .double(9_007_199_254_740_992))
    }

    /// Decimal and exponent ids are typed as before (no text kept): 1e3 and 1000.0 in an integer field are 1000.
    @Test func decimalIdsAreTypedAsBefore() throws {
        let ids = try decodeTrackIDs(["1e3", "1000.0", "1.5"], type: .integer)
        #expect(ids == [.int(1000), .int(1000), .double(1.5)])
    }
}
