import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import Foundation

/// Decoded observations keep their values in their decoder's slab, not in an
/// array each. What users rely on: every way of reading the values gives what
/// the message said (across many slabs, after the decoder is gone), and
/// changing an observation behaves as it does for one built from an array.
@Suite("Observation values in the decoder's slab", .bounded)
struct ObservationSlabTests {
    private static let schema = Schema(fields: [
        Field(name: "id", type: .string), Field(name: "note", type: .string),
        Field(name: "speed", type: .double), Field(name: "count", type: .integer),
    ], trackIDField: "id")

    /// The values the test writes into message `index`: strings longer than
    /// 15 bytes (stored apart from the value) and short ones, numbers, nulls.
    private static func expected(_ index: Int) -> [AttributeValue] {
        // Every 7th note is JSON null, every 5th is left out of the message: both read as null.
        let note: AttributeValue = index % 7 == 0 || index % 5 == 0 ? .null : .string("note number \(index) of a long series")
        return [.string("T\(index % 13)"), note, .double(Double(index) + 0.25), .int(Int64(index * 3))]
    }

    private static func message(_ index: Int) -> String {
        let values = expected(index)
        guard case .string(let id) = values[0], case .double(let speed) = values[2], case .int(let count) = values[3] else { return "" }
        let note: String
        if case .string(let text) = values[1] { note = #","note":"\#(text)""# } else { note = index % 5 == 0 ? "" : #","note":null"# }
        return #"{"geometry":{"x":\#(index),"y":2},"attributes":{"id":"\#(id)"\#(note),"speed":\#(speed),"count":\#(count)}}"#
    }

    private static func decodedObservations(count: Int) throws -> [Observation] {
        var decoder = EsriFeatureDecoder(schema: schema)
        var output: [StreamMessage] = []
        for index in 0..<count { try decoder.decode(message(index), receivedAt: Int64(index), into: &output) }
        return output.map { message in
            guard case .observation(let observation) = message else { return Observation(geometry: nil, attributes: [], receivedAt: -1) }
            return observation
        }
    }

    @Test func everyReadGivesTheMessagesValues() throws {
        // 3,000 messages of 4 values: several slabs' worth, read after the decoder is gone.
        let observations = try Self.decodedObservations(count: 3_000)
        #expect(observations.count == 3_000)
        for (index, observation) in observations.enumerated() {
            let expected = Self.expected(index)
            #expect(observation.attributes == expected, "message \(index)")
            #expect(observation.attributeCount == expected.count)
            #expect((0..<6).map { observation.attribute($0) } == expected + [.null, .null])
            #expect(observation.withAttributeValues { Array($0) } == expected)
            #expect(observation.geometry == Point(x: Double(index), y: 2))
            #expect(observation == Observation(geometry: Point(x: Double(index), y: 2), attributes: expected, receivedAt: Int64(index)))
            #expect(observation.hashValue == Observation(geometry: Point(x: Double(index), y: 2), attributes: expected, receivedAt: Int64(index)).hashValue)
        }
    }

    @Test func changesGiveTheObservationValuesOfItsOwn() throws {
        let decoded = try Self.decodedObservations(count: 20)
        let original = decoded[10]
        #expect(original.source != nil)

        var changedOne = original
        changedOne.attributes[2] = .double(-1)
        #expect(changedOne.attributes == [Self.expected(10)[0], Self.expected(10)[1], .double(-1), Self.expected(10)[3]])
        #expect(changedOne.source == nil)
        #expect(original.attributes == Self.expected(10))
        #expect(original.source != nil)
        // The other observations of the slab are untouched.
        #expect(decoded[11].attributes == Self.expected(11))

        var appended = original
        appended.attributes.append(.bool(true))
        #expect(appended.attributeCount == 5)
        #expect(appended.attribute(4) == .bool(true))

        var replaced = original
        replaced.attributes = [.string("X")]
        #expect(replaced.attributes == [.string("X")])
        #expect(replaced.attribute(1) == .null)
        #expect(replaced.source == nil)

        var moved = original
        moved.geometry = Point(x: 0, y: 0)
        #expect(moved.source == nil)
        #expect(moved.attributes == Self.expected(10))
    }

    @Test func sourceMembersAreReadInPlace() throws {
        let decoded = try Self.decodedObservations(count: 40)
        for index in [0, 5, 39] {
            let members = decoded[index].withSourceMembers { geometry, attributes in
                (geometry.map { String(decoding: $0, as: UTF8.self) }, attributes.map { String(decoding: $0, as: UTF8.self) })
            }
            #expect(members?.0 == Self.memberTexts(index).geometry)
            #expect(members?.1 == Self.memberTexts(index).attributes)
        }
        var dropped = decoded[6]
        dropped.source = nil
        #expect(dropped.withSourceMembers { _, _ in true } == nil)
        #expect(Observation(geometry: nil, attributes: [], receivedAt: 0).withSourceMembers { _, _ in true } == nil)
    }

    @Test func learnedFieldsWidenLaterObservations() throws {
        var decoder = EsriFeatureDecoder(schema: Self.schema)
        var output: [StreamMessage] = []
        try decoder.decode(Self.message(1), receivedAt: 1, into: &output)
        try decoder.decode(#"{"geometry":{"x":1,"y":2},"attributes":{"id":"L","extra":"a value that is long enough"}}"#, receivedAt: 2, into: &output)
        try decoder.decode(Self.message(3), receivedAt: 3, into: &output)
        let observations = output.compactMap { message -> Observation? in
            if case .observation(let observation) = message { return observation } else { return nil }
        }
        #expect(observations.map(\.attributeCount) == [4, 5, 5])
        #expect(observations[0].attributes == Self.expected(1))
        #expect(observations[1].attributes == [.string("L"), .null, .null, .null, .string("a value that is long enough")])
        #expect(observations[2].attributes == Self.expected(3) + [.null])
    }

    /// The text of the message's geometry and attributes members, as the test wrote them.
    private static func memberTexts(_ index: Int) -> (geometry: String, attributes: String) {
        let text = message(index)
        let attributesStart = text.range(of: #","attributes":"#)!
        return (String(text[text.index(text.startIndex, offsetBy: #"{"geometry":"#.count)..<attributesStart.lowerBound]),
                String(text[attributesStart.upperBound..<text.index(before: text.endIndex)]))
    }

    @Test func sourceTextIsTheMessagesAndMovesWithTheObservation() throws {
        let decoded = try Self.decodedObservations(count: 600)
        for index in [0, 1, 299, 599] {
            #expect(decoded[index].source?.geometryText == Self.memberTexts(index).geometry)
            #expect(decoded[index].source?.attributesText == Self.memberTexts(index).attributes)
        }
        // Another observation's text, from the same slab or given to values of one's own.
        var borrowed = decoded[1]
        borrowed.source = decoded[2].source
        #expect(borrowed.source?.attributesText == Self.memberTexts(2).attributes)
        #expect(borrowed.attributes == Self.expected(1))
        var owned = Observation(geometry: nil, attributes: [.string("own")], receivedAt: 0)
        owned.source = decoded[599].source
        #expect(owned.source?.geometryText == Self.memberTexts(599).geometry)
        #expect(owned.attributes == [.string("own")])
        var dropped = decoded[3]
        dropped.source = nil
        #expect(dropped.source == nil)
        #expect(dropped.attributes == Self.expected(3))
    }
}
