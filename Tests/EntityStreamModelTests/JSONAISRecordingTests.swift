import Foundation
import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel

/// The real AIS recording (8,400 Esri JSON lines) through the decoder, checked against JSONSerialization.
/// Skipped, with a message, when the shared data folder is absent.
@Suite(.enabled(if: JSONTestData.aisRecordingExists,
                "AIS recording not found (set ENTITYSTREAM_SHARED_DATA or provide ../shared/data); skipping"), .bounded)
struct JSONAISRecordingTests {
    static let serviceSchema = Schema(fields: [
        Field(name: "MMSI", type: .string), Field(name: "SOG", type: .double), Field(name: "COG", type: .double),
        Field(name: "VesselName", type: .string), Field(name: "CallSign", type: .string), Field(name: "globalid", type: .globalID),
    ], trackIDField: "MMSI")

    static func lines() throws -> [[UInt8]] {
        let data = try Data(contentsOf: JSONTestData.aisRecording)
        return data.split(separator: 0x0A).map { Array($0) }.filter { !$0.isEmpty }
    }

    /// Every line decodes to exactly one observation; 14 distinct MMSI; every attribute and x/y equals JSONSerialization's.
    @Test func everyLineMatchesFoundation() throws {
        let lines = try JSONAISRecordingTests.lines()
        #expect(lines.count == 8400)
        var decoder = EsriFeatureDecoder(schema: JSONAISRecordingTests.serviceSchema)
        var vessels = Set<String>()
        var output: [StreamMessage] = []
        for (number, line) in lines.enumerated() {
            output.removeAll(keepingCapacity: true)
            try decoder.decode(line, receivedAt: Int64(number), into: &output)
            guard output.count == 1, case .observation(let observation) = output[0] else {
                Issue.record("line \(number + 1): expected one observation, got \(output)")
                continue
            }
            #expect(throws: Never.self) { try JSONParser.validate(line) }
            let foundation = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let geometry = try #require(foundation["geometry"] as? [String: Any])
            let attributes = try #require(foundation["attributes"] as? [String: Any])
            #expect(sameNumber(geometry["x"], observation.geometry?.x), "line \(number + 1) x")
            #expect(sameNumber(geometry["y"], observation.geometry?.y), "line \(number + 1) y")
            #expect(observation.geometry?.wkid == ((geometry["spatialReference"] as? [String: Any])?["wkid"] as? NSNumber)?.intValue)
            #expect(Set(attributes.keys) == Set(decoder.schema.fields.map(\.name)), "line \(number + 1) keys")
            for (index, field) in decoder.schema.fields.enumerated() {
                let ours = observation.attribute(index)
                let theirs = attributes[field.name]
                let equal: Bool
                switch ours {
                case .string(let s): equal = (theirs as? String).map { Array($0.utf8) == Array(s.utf8) } ?? false
                case .double(let d): equal = sameNumber(theirs, d)
                case .null: equal = theirs is NSNull
                default: equal = false
                }
                #expect(equal, "line \(number + 1) \(field.name): \(ours) vs \(String(describing: theirs))")
            }
            if case .string(let mmsi) = observation.attribute(0) { vessels.insert(mmsi) }
        }
        #expect(vessels.count == 14)
        #expect(decoder.schema == JSONAISRecordingTests.serviceSchema, "no fields learned with the service schema")
    }

    /// Without a service description the six fields are learned from the first line, in order.
    @Test func learnsTheFieldsWithoutASchema() throws {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: []))
        var output: [StreamMessage] = []
        for line in try JSONAISRecordingTests.lines() {
            try decoder.decode(line, receivedAt: 0, into: &output)
        }
        #expect(output.count == 8400)
        #expect(decoder.schema.fields.map(\.name) == ["MMSI", "SOG", "COG", "VesselName", "CallSign", "globalid"])
        #expect(decoder.schema.fields.map(\.type) == [.string, .integer, .double, .string, .string, .string])
        #expect(output.allSatisfy { $0.carriedObservation?.attributes.count == 6 && $0.carriedObservation?.geometry != nil })
    }

    /// Decoded observations written back with appendFeature decode to the same observations.
    @Test func writeBackRoundTrips() throws {
        var decoder = EsriFeatureDecoder(schema: JSONAISRecordingTests.serviceSchema)
        var writer = JSONWriter()
        for line in try JSONAISRecordingTests.lines().prefix(2000) {
            var first: [StreamMessage] = []
            try decoder.decode(line, receivedAt: 5, into: &first)
            writer.removeAll()
            writer.appendFeature(try #require(first.first?.carriedObservation), fields: decoder.schema.fields)
            var second: [StreamMessage] = []
            try decoder.decode(writer.bytes, receivedAt: 5, into: &second)
            #expect(first == second)
        }
    }

    /// Whether a JSONSerialization number equals `value` exactly (correctly rounded decimal for NSDecimalNumber).
    func sameNumber(_ foundation: Any?, _ value: Double?) -> Bool {
        guard let value, let number = foundation as? NSNumber else { return false }
        if let decimal = number as? NSDecimalNumber {
            return Double(decimal.description)?.bitPattern == value.bitPattern
        }
        return number.doubleValue.bitPattern == value.bitPattern || (value == 0 && number.doubleValue == 0)
    }
}
