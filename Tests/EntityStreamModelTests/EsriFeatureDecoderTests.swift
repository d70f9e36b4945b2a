import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// EsriFeatureDecoder: message forms, typing, field learning, errors and atomicity.
@Suite(.bounded)
struct EsriFeatureDecoderTests {
    static let vesselSchema = Schema(fields: [
        Field(name: "MMSI", type: .string),
        Field(name: "SOG", type: .double),
        Field(name: "Heading", type: .integer),
        Field(name: "Seen", type: .date),
    ], trackIDField: "MMSI")

    func decode(_ text: String, schema: Schema = EsriFeatureDecoderTests.vesselSchema) throws(JSONError) -> [StreamMessage] {
        var decoder = EsriFeatureDecoder(schema: schema)
        return try jsonTestDecode(text, decoder: &decoder)
    }

    /// The byte offset of the first occurrence of `needle` in `text`.
    func offset(of needle: String, in text: String) -> Int {
        let bytes = Array(text.utf8), pattern = Array(needle.utf8)
        for i in 0...(bytes.count - pattern.count) where Array(bytes[i..<i + pattern.count]) == pattern { return i }
        Issue.record("\(needle) not in \(text)")
        return -1
    }

    func decodeError(_ text: String, schema: Schema = EsriFeatureDecoderTests.vesselSchema) -> JSONError? {
        do {
            _ = try decode(text, schema: schema)
            Issue.record("expected an error for \(text)")
            return nil
        } catch {
            return error
        }
    }

    // MARK: Message forms

    /// A single feature decodes to one observation with typed, schema-aligned attributes.
    @Test func singleFeature() throws {
        let messages = try decode(#"{"geometry":{"x":-122.39063,"y":47.62897,"spatialReference":{"wkid":4326}},"attributes":{"MMSI":"367673950","SOG":0,"Heading":90,"Seen":1700000000000}}"#)
        let expected = Observation(geometry: Point(x: -122.39063, y: 47.62897, wkid: 4326),
                                   attributes: [.string("367673950"), .double(0), .int(90), .date(milliseconds: 1_700_000_000_000)],
                                   receivedAt: 42)
        #expect(messages == [.observation(expected)])
    }

    /// Keys may come in any order at every level; fields absent from the message are null.
    @Test func keysInAnyOrder() throws {
        let messages = try decode(#"{"attributes":{"Heading":5,"MMSI":"a"},"geometry":{"spatialReference":{"wkid":3857},"y":2,"x":1}}"#)
        #expect(messages == [.observation(Observation(geometry: Point(x: 1, y: 2, wkid: 3857),
                                                      attributes: [.string("a"), .null, .int(5), .null], receivedAt: 42))])
    }

    /// An array message yields one message per element, in order; an empty array yields none.
    @Test func arrayMessage() throws {
        let messages = try decode(#"""
        [ {"geometry":{"x":1,"y":2},"attributes":{"MMSI":"a"}},
          {"type":"update","feature":{"geometry":{"x":3,"y":4},"attributes":{"MMSI":"b"}}},
          {"type":"delete","feature":{"attributes":{"MMSI":"c"}}},
          {"filter":{"where":"1=1"}} ]
        """#)
        try #require(messages.count == 4)
        #expect(messages[0].carriedObservation?.attributes.first == .string("a"))
        #expect(messages[1] == .observation(Observation(geometry: Point(x: 3, y: 4), attributes: [.string("b"), .null, .null, .null], receivedAt: 42)))
        #expect(messages[2] == .delete(Observation(geometry: nil, attributes: [.string("c"), .null, .null, .null], receivedAt: 42)))
        #expect(messages[3] == .filterReply(JSONObject([("filter", .object(JSONObject([("where", .string("1=1"))])))])))
        #expect(try decode("[]").isEmpty)
        #expect(try decode(" [ ] ").isEmpty)
    }

    /// {type:create|update, feature} is an observation; {type:delete, feature} a delete (geometry kept when given).
    @Test func typedMessages() throws {
        let create = try decode(#"{"type":"create","feature":{"geometry":{"x":1,"y":2},"attributes":{"MMSI":"a"}}}"#)
        #expect(create == [.observation(Observation(geometry: Point(x: 1, y: 2), attributes: [.string("a"), .null, .null, .null], receivedAt: 42))])
        let update = try decode(#"{"feature":{"attributes":{"MMSI":"a"}},"type":"update"}"#)
        #expect(update == [.observation(Observation(geometry: nil, attributes: [.string("a"), .null, .null, .null], receivedAt: 42))])
        let delete = try decode(#"{"type":"delete","feature":{"geometry":{"x":1,"y":2},"attributes":{"MMSI":"gone"}}}"#)
        #expect(delete == [.delete(Observation(geometry: Point(x: 1, y: 2), attributes: [.string("gone"), .null, .null, .null], receivedAt: 42))])
        let nonPoint = try decode(#"{"type":"create","feature":{"geometry":{"paths":[[[0,0],[1,1]]]},"attributes":{"MMSI":"p"}}}"#)
        #expect(nonPoint == [.nonPointGeometry(kind: "polyline", Observation(geometry: nil, attributes: [.string("p"), .null, .null, .null], receivedAt: 42))])
    }

    /// Any object with a "filter" key is a filter reply, parsed whole, with or without "error", wherever the key is.
    @Test func filterReplies() throws {
        let plain = try decode(#"{"filter":{"geometry":null,"where":"SOG > 5","outFields":["*"]}}"#)
        guard case .filterReply(let reply)? = plain.first else {
            Issue.record("not a filter reply: \(plain)")
            return
        }
        #expect(reply["filter"]?["where"] == .string("SOG > 5"))
        #expect(reply["filter"]?["outFields"] == .array([.string("*")]))
        let withError = try decode(#"{"error":{"code":400,"messages":["bad where"]},"geometry":42,"filter":{"where":"nonsense"}}"#)
        guard case .filterReply(let failed)? = withError.first else {
            Issue.record("not a filter reply: \(withError)")
            return
        }
        #expect(failed["error"]?["code"] == .int(400))
        #expect(failed.keys == ["error", "geometry", "filter"])
    }

    /// Polyline, polygon, multipoint and envelope geometries are reported with their kind and the attributes.
    @Test func nonPointGeometries() throws {
        let cases = [(#"{"paths":[]}"#, "polyline"), (#"{"curvePaths":[]}"#, "polyline"), (#"{"rings":[[[0,0],[1,0],[0,1],[0,0]]]}"#, "polygon"),
                     (#"{"curveRings":[]}"#, "polygon"), (#"{"points":[[1,2]],"spatialReference":{"wkid":4326}}"#, "multipoint"),
                     (#"{"xmin":0,"ymin":0,"xmax":1,"ymax":1}"#, "envelope")]
        for (geometry, kind) in cases {
            let messages = try decode(#"{"geometry":\#(geometry),"attributes":{"MMSI":"k"}}"#)
            #expect(messages == [.nonPointGeometry(kind: kind, Observation(geometry: nil, attributes: [.string("k"), .null, .null, .null], receivedAt: 42))], "\(geometry)")
        }
    }

    /// Null, absent, empty-object and empty-point geometries give geometry nil.
    @Test func emptyGeometries() throws {
        for geometry in [#""geometry":null,"#, "", #""geometry":{},"#, #""geometry":{"x":null,"y":null},"#, #""geometry":{"x":"NaN","y":"NaN"},"#,
                         #""geometry":{"x":null,"y":5},"#, #""geometry":{"spatialReference":{"wkid":4326}},"#] {
            let messages = try decode("{\(geometry)\"attributes\":{\"MMSI\":\"e\"}}")
            #expect(messages == [.observation(Observation(geometry: nil, attributes: [.string("e"), .null, .null, .null], receivedAt: 42))], "\(geometry)")
        }
        // A geometry alone (no attributes member) is still a feature, all attributes null.
        #expect(try decode(#"{"geometry":{"x":1,"y":2}}"#) == [.observation(Observation(geometry: Point(x: 1, y: 2), attributes: [.null, .null, .null, .null], receivedAt: 42))])
        // attributes: null is accepted as "no attributes".
        #expect(try decode(#"{"geometry":null,"attributes":null}"#) == [.observation(Observation(geometry: nil, attributes: [.null, .null, .null, .null], receivedAt: 42))])
    }

    /// z, m, latestWkid (used when wkid is absent; wkid wins otherwise) and wkt-only references.
    @Test func pointDetails() throws {
        let zm = try decode(#"{"geometry":{"x":1,"y":2,"z":3.5,"m":-1,"spatialReference":{"latestWkid":3857,"wkid":102100}}}"#)
        #expect(zm.first?.carriedObservation?.geometry == Point(x: 1, y: 2, z: 3.5, m: -1, wkid: 102100))
        let latest = try decode(#"{"geometry":{"x":1,"y":2,"spatialReference":{"latestWkid":3857}}}"#)
        #expect(latest.first?.carriedObservation?.geometry == Point(x: 1, y: 2, wkid: 3857))
        let wkt = try decode(#"{"geometry":{"x":1,"y":2,"z":null,"m":"NaN","spatialReference":{"wkt":"PROJCS[...]"}}}"#)
        #expect(wkt.first?.carriedObservation?.geometry == Point(x: 1, y: 2))
        let nullReference = try decode(#"{"geometry":{"x":1e2,"y":-0.5,"spatialReference":null,"hasZ":false}}"#)
        #expect(nullReference.first?.carriedObservation?.geometry == Point(x: 100, y: -0.5))
    }

    /// Unknown extra keys (symbol, popupTemplate) are skipped but still validated.
    @Test func extraKeysSkippedButValidated() throws {
        let messages = try decode(#"{"symbol":{"type":"esriSMS","color":[1,2,3,255]},"geometry":{"x":1,"y":2},"popupTemplate":null,"attributes":{"MMSI":"s"}}"#)
        #expect(messages.count == 1)
        let broken = #"{"symbol":{"color":[1,2,]},"geometry":{"x":1,"y":2}}"#
        #expect(decodeError(broken) == JSONError(offset: offset(of: "]}", in: broken), message: "expected a JSON value"))
        let badString = "{\"symbol\":\"a\u{01}\",\"geometry\":null}"
        #expect(decodeError(badString)?.message == "unescaped control character U+0001 in string")
    }

    // MARK: Typing

    /// Date, float and integer fields type numbers; strings stay strings; JSON types otherwise kept.
    @Test func typingByDeclaredFieldType() throws {
        func attributes(_ json: String) throws -> [AttributeValue] {
            try decode(#"{"attributes":\#(json)}"#).first?.carriedObservation?.attributes ?? []
        }
        // Date field: integral numbers → .date; non-integral stays .double; strings stay strings.
        #expect(try attributes(#"{"Seen":1700000000123}"#)[3] == .date(milliseconds: 1_700_000_000_123))
        #expect(try attributes(#"{"Seen":-5}"#)[3] == .date(milliseconds: -5))
        #expect(try attributes(#"{"Seen":1.7e12}"#)[3] == .date(milliseconds: 1_700_000_000_000))
        #expect(try attributes(#"{"Seen":1.5}"#)[3] == .double(1.5))
        #expect(try attributes(#"{"Seen":"2024-01-01"}"#)[3] == .string("2024-01-01"))
        // Float field: integers → .double.
        #expect(try attributes(#"{"SOG":7}"#)[1] == .double(7))
        #expect(try attributes(#"{"SOG":7.25}"#)[1] == .double(7.25))
        #expect(try attributes(#"{"SOG":"fast"}"#)[1] == .string("fast"))
        // Integer field: integral numbers → .int, others stay .double.
        #expect(try attributes(#"{"Heading":5.0}"#)[2] == .int(5))
        #expect(try attributes(#"{"Heading":1e2}"#)[2] == .int(100))
        #expect(try attributes(#"{"Heading":-0.0}"#)[2] == .int(0))
        #expect(try attributes(#"{"Heading":5.5}"#)[2] == .double(5.5))
        #expect(try attributes(#"{"Heading":1e30}"#)[2] == .double(1e30))
        #expect(try attributes(#"{"Heading":9223372036854775808}"#)[2] == .double(9223372036854775808.0))
        #expect(try attributes(#"{"Heading":true}"#)[2] == .bool(true))
        #expect(try attributes(#"{"Heading":null}"#)[2] == .null)
        // String field keeps the JSON type of whatever arrives.
        #expect(try attributes(#"{"MMSI":367}"#)[0] == .int(367))
        #expect(try attributes(#"{"MMSI":"367"}"#)[0] == .string("367"))
        // Escapes in values decode.
        #expect(try attributes(#"{"MMSI":"a\"b\u00e9\ud83d\ude00"}"#)[0] == .string("a\"bé😀"))
    }

    /// Attribute keys match field names ASCII case-insensitively, escaped or not; a repeated key's last value wins.
    @Test func caseInsensitiveKeysAndDuplicates() throws {
        let attributes = try decode(#"{"attributes":{"mmsi":"x","sOg":1.5,"HEADING":3,"\u0053een":0,"MMSI":"y"}}"#).first?.carriedObservation?.attributes
        #expect(attributes == [.string("y"), .double(1.5), .int(3), .date(milliseconds: 0)])
    }

    // MARK: Field learning

    /// Unknown names are appended to the schema with inferred types; earlier observations keep their shorter arrays.
    @Test func learnsUnknownFields() throws {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "id", type: .string)]))
        let first = try jsonTestDecode(#"{"attributes":{"id":"a"}}"#, decoder: &decoder)
        #expect(first.first?.carriedObservation?.attributes == [.string("a")])
        let second = try jsonTestDecode(#"{"attributes":{"id":"b","name":"n","count":3,"ratio":0.5,"flag":false,"nothing":null,"big":18446744073709551616}}"#, decoder: &decoder)
        #expect(decoder.schema.fields.map(\.name) == ["id", "name", "count", "ratio", "flag", "nothing", "big"])
        #expect(decoder.schema.fields.map(\.type) == [.string, .string, .integer, .double, .other("boolean"), .string, .double])
        #expect(second.first?.carriedObservation?.attributes == [.string("b"), .string("n"), .int(3), .double(0.5), .bool(false), .null, .double(18446744073709551616.0)])
        // The earlier observation is unchanged and reads learned fields as null.
        #expect(first.first?.carriedObservation?.attribute(3) == .null)
        // Learned fields are matched (case-insensitively) and typed from then on.
        let third = try jsonTestDecode(#"{"attributes":{"COUNT":4.0,"Ratio":2}}"#, decoder: &decoder)
        #expect(third.first?.carriedObservation?.attributes == [.null, .null, .int(4), .double(2), .null, .null, .null])
    }

    /// Within one array message, a field learned from one element is used by the next.
    @Test func learningAcrossArrayElements() throws {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        let messages = try jsonTestDecode(#"[{"attributes":{"a":1}},{"attributes":{"b":2,"A":3}}]"#, decoder: &decoder)
        #expect(decoder.schema.fields.map(\.name) == ["a", "b"])
        #expect(messages.map { $0.carriedObservation?.attributes } == [[.int(1)], [.int(3), .int(2)]])
        // Two spellings of one new name in the same feature: one field, last value wins.
        let same = try jsonTestDecode(#"{"attributes":{"new":1,"NEW":2}}"#, decoder: &decoder)
        #expect(decoder.schema.fields.map(\.name) == ["a", "b", "new"])
        #expect(same.first?.carriedObservation?.attributes == [.null, .null, .int(2)])
    }

    /// A name the schema knows through Unicode canonical equivalence resolves to that field, not a new one.
    @Test func canonicallyEquivalentNames() throws {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "caf\u{E9}", type: .integer)]))
        let messages = try jsonTestDecode("{\"attributes\":{\"cafe\u{301}\":2.0}}", decoder: &decoder)
        #expect(decoder.schema.fields.count == 1)
        #expect(messages.first?.carriedObservation?.attributes == [.int(2)])
        // Second time through the remembered spelling.
        let again = try jsonTestDecode("{\"attributes\":{\"CAFE\u{301}\":3}}", decoder: &decoder)
        #expect(again.first?.carriedObservation?.attributes == [.int(3)])
    }

    // MARK: Errors

    /// Well-formed JSON that is not a stream message throws, naming the problem at its offset.
    @Test func rejectsNonMessages() {
        #expect(decodeError("42") == JSONError(offset: 0, message: "not a stream message: expected a feature object or an array of them"))
        #expect(decodeError(" \"x\"")?.offset == 1)
        #expect(decodeError(#"{"foo":1}"#) == JSONError(offset: 0, message: "not a stream message: expected \"geometry\"/\"attributes\", \"type\" and \"feature\", or \"filter\""))
        #expect(decodeError("{}")?.offset == 0)
        #expect(decodeError("[1]") == JSONError(offset: 1, message: "not a stream message: array elements must be feature objects"))
        #expect(decodeError("[[]]")?.offset == 1)
        let attributesNumber = #"{"geometry":null,"attributes":5}"#
        #expect(decodeError(attributesNumber) == JSONError(offset: offset(of: "5}", in: attributesNumber), message: "\"attributes\" must be an object or null"))
        let xBool = #"{"geometry":{"x":true,"y":1}}"#
        #expect(decodeError(xBool) == JSONError(offset: offset(of: "true", in: xBool), message: "a coordinate must be a number, null or \"NaN\""))
        let xString = #"{"geometry":{"y":1, "x":"12"}}"#
        #expect(decodeError(xString) == JSONError(offset: offset(of: "\"12\"", in: xString), message: "a coordinate must be a number, null or \"NaN\""))
        let yMissing = #"{"geometry":{"x":1}}"#
        #expect(decodeError(yMissing) == JSONError(offset: offset(of: "{\"x\"", in: yMissing), message: "a point geometry needs both \"x\" and \"y\""))
        let geometryArray = #"{"geometry":[1,2]}"#
        #expect(decodeError(geometryArray)?.offset == offset(of: "[", in: geometryArray))
        let nested = #"{"attributes":{"MMSI":{"v":1}}}"#
        #expect(decodeError(nested) == JSONError(offset: offset(of: "{\"v\"", in: nested), message: "an attribute value must be a string, number, boolean or null"))
        let badType = #"{"type":"upsert","feature":{"attributes":{}}}"#
        #expect(decodeError(badType) == JSONError(offset: offset(of: "\"upsert\"", in: badType), message: "unknown message \"type\"; expected \"create\", \"update\" or \"delete\""))
        #expect(decodeError(#"{"type":"create"}"#) == JSONError(offset: 0, message: "a \"type\" message needs a \"feature\" object"))
        let untyped = #"{"feature":{"attributes":{}}}"#
        #expect(decodeError(untyped) == JSONError(offset: offset(of: "{\"attributes", in: untyped), message: "a \"feature\" member needs \"type\": \"create\", \"update\" or \"delete\""))
        let emptyFeature = #"{"type":"delete","feature":{}}"#
        #expect(decodeError(emptyFeature)?.offset == offset(of: "{}", in: emptyFeature))
        let badWkid = #"{"geometry":{"x":1,"y":2,"spatialReference":{"wkid":"4326"}}}"#
        #expect(decodeError(badWkid) == JSONError(offset: offset(of: "\"4326\"", in: badWkid), message: "a well-known id must be an integer"))
    }

    /// Malformed JSON throws the syntax error even when a member's meaning is also wrong, and trailing data is rejected.
    @Test func syntaxErrorsWin() {
        let text = #"{"attributes":5,"geometry":{"x":1,"y":2,}}"#
        #expect(decodeError(text) == JSONError(offset: offset(of: ",}", in: text) + 1, message: "expected '\"' to begin an object key"))
        let badInside = #"{"geometry":{"x":tru,"y":1}}"#
        #expect(decodeError(badInside) == JSONError(offset: offset(of: "tru", in: badInside), message: "invalid literal; expected 'true'"))
        #expect(decodeError(#"{"geometry":null} x"#)?.message == "unexpected data after the JSON value")
        #expect(decodeError(#"[{"geometry":null}"#)?.message == "unexpected end of input; expected ',' or ']' after array element")
        #expect(decodeError("")?.offset == 0)
        #expect(decodeError(#"{"geometry":null,"attributes":{"MMSI":"\ud800"}}"#)?.message.contains("surrogate") == true)
    }

    /// Nesting beyond the decoder's depth limit is rejected, also inside skipped members.
    @Test func depthLimit() {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []), maxDepth: 4)
        var output: [StreamMessage] = []
        let atLimit = Array(#"{"geometry":null,"symbol":{"a":[[1]]}}"#.utf8)
        let beyond = Array(#"{"geometry":null,"symbol":{"a":[[[1]]]}}"#.utf8)
        #expect((try? decoder.decode(atLimit, receivedAt: 0, into: &output)) != nil)
        do {
            try decoder.decode(beyond, receivedAt: 0, into: &output)
            Issue.record("expected a depth error")
        } catch {
            #expect(error == JSONError(offset: 33, message: "nesting depth exceeds the limit of 4"))
        }
        let deep = "{\"geometry\":null,\"s\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}"
        #expect(decodeError(deep)?.message == "nesting depth exceeds the limit of 512")
    }

    /// On any throw, output and schema are exactly as before (array messages are all-or-nothing).
    @Test func errorLeavesOutputAndSchemaUntouched() {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: [Field(name: "id", type: .string)]))
        let before = StreamMessage.observation(Observation(geometry: nil, attributes: [.string("keep")], receivedAt: 1))
        var output = [before]
        let message = #"[{"attributes":{"id":"a","learned":1}},{"attributes":{"id":"b"}},{"attributes":{"id":"c","x":}}]"#
        #expect(throws: JSONError.self) { try decoder.decode(Array(message.utf8), receivedAt: 2, into: &output) }
        #expect(output == [before])
        #expect(decoder.schema.fields.map(\.name) == ["id"])
        // Semantic errors too.
        #expect(throws: JSONError.self) { try decoder.decode(Array(#"[{"attributes":{"new":1}},42]"#.utf8), receivedAt: 2, into: &output) }
        #expect(output == [before])
        #expect(decoder.schema.fields.map(\.name) == ["id"])
        // The decoder still works afterwards and learns normally.
        #expect(throws: Never.self) { try decoder.decode(Array(#"{"attributes":{"new":1}}"#.utf8), receivedAt: 3, into: &output) }
        #expect(output.count == 2)
        #expect(decoder.schema.fields.map(\.name) == ["id", "new"])
    }

}

extension EsriFeatureDecoderTests {
    /// The String, [UInt8] and raw-buffer entry points agree; receivedAt is stamped on every observation.
    @Test func entryPointsAndReceivedAt() throws {
        let text = #"[{"geometry":{"x":1,"y":2}},{"type":"delete","feature":{"attributes":{"MMSI":"z"}}}]"#
        var viaString = EsriFeatureDecoder(schema: EsriFeatureDecoderTests.vesselSchema)
        var viaArray = viaString
        var viaBuffer = viaString
        var fromString: [StreamMessage] = []
        var fromArray: [StreamMessage] = []
        var fromBuffer: [StreamMessage] = []
        try viaString.decode(text, receivedAt: 777, into: &fromString)
        let bytes = Array(text.utf8)
        try viaArray.decode(bytes, receivedAt: 777, into: &fromArray)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        try viaBuffer.decode(UnsafeRawBufferPointer(buffer), receivedAt: 777, into: &fromBuffer)
        #expect(fromString == fromArray)
        #expect(fromString == fromBuffer)
        #expect(fromString.count == 2)
        #expect(fromString.allSatisfy { $0.carriedObservation?.receivedAt == 777 })
    }
}
