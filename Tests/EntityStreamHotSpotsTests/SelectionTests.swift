import EntityStreamCore
import Foundation
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// A table loaded from CSV text the test writes (the project's loader, whose own tests live elsewhere).
private func table(_ lines: [String], mapping: FeatureColumnMapping) throws -> FeatureTable {
    try FeatureFile.load(bytes: Array(lines.joined(separator: "\n").utf8), fileName: "incidents.csv",
                         options: FeatureLoadOptions(mapping: mapping))
}

private let day: Int64 = 86_400_000
/// 2000-01-01T00:00:00Z in epoch milliseconds (946684800 s, a well-known constant).
private let january1: Int64 = 946_684_800_000

/// Incident `i` happens at 2000-01-01 + i/4 days (every 6 hours), at (i, 2i) feet, with `weight` i % 5 (empty for i % 7 == 3).
private func incidentLines(_ count: Int) -> [String] {
    ["when,east,north,weight"] + (0..<count).map { i in
        let hours = i * 6
        let when = String(format: "2000-01-%02dT%02d:00:00Z", 1 + hours / 24, hours % 24)
        return "\(when),\(Double(i)),\(Double(2 * i)),\(i % 7 == 3 ? "" : String(i % 5))"
    }
}

@Suite("Hot spots: selecting records", .bounded)
struct SelectionTests {
    static let mapping = FeatureColumnMapping(x: "east", y: "north", time: "when", wkid: 2913)

    /// The sample's own Query (strict at both ends, "DATE" naming the time field) selects exactly the incidents strictly between the dates.
    @Test func sampleQueryThroughTheDateAlias() throws {
        let data = try table(incidentLines(100), mapping: Self.mapping)
        let from = january1 + 2 * day, to = january1 + 10 * day
        let query = try GPDateRangeQuery.make(from: from, to: to)
        #expect(query == #"("DATE" > date '2000-01-03 00:00:00' AND "DATE" < date '2000-01-11 00:00:00')"#)
        let selection = try HotSpotTableSelection.select(from: data, whereClause: query)
        let expected = (0..<100).filter { i in
            let t = january1 + Int64(i) * day / 4
            return t > from && t < to
        }
        #expect(selection.matchedCount == expected.count)
        #expect(selection.input.count == expected.count && selection.input.kind == .incidents)
        #expect(selection.input.x == expected.map { Double($0) })
        // SOURCE_ID: the object ids assigned 1, 2, 3… in file order.
        #expect(selection.sourceIDs == expected.map { Int64($0 + 1) })
        #expect(selection.reading.coordinates == .projected && selection.reading.outputWKID == 2913)
        // Unquoted, lower case: the same.
        let lower = try HotSpotTableSelection.select(from: data, whereClause: "date > date '2000-01-03 00:00:00' AND date < date '2000-01-11 00:00:00'")
        #expect(lower.matchedCount == expected.count)
    }

    /// A time extent is inclusive at both ends; a value field reads numbers and counts the missing ones.
    @Test func timeExtentAndValueField() throws {
        let data = try table(incidentLines(60), mapping: Self.mapping)
        let extent = try TimeExtent(start: january1 + day, end: january1 + 5 * day)
        let selection = try HotSpotTableSelection.select(from: data, timeExtent: extent, valueField: "WEIGHT")
        let kept = (0..<60).filter { i in (4...20).contains(i) }
        #expect(selection.matchedCount == kept.count)
        #expect(selection.input.kind == .weighted && selection.valueField == "weight")
        let withValue = kept.filter { $0 % 7 != 3 }
        #expect(selection.input.values == withValue.map { Double($0 % 5) })
        #expect(selection.input.excluded.missingValue == kept.count - withValue.count)
    }

    /// Unknown and non-numeric value fields, a bad where clause and a time extent without a time field are refused by name.
    @Test func refusals() throws {
        let data = try table(incidentLines(10), mapping: Self.mapping)
        #expect(throws: HotSpotSelectionError.unknownValueField(name: "speed", fields: data.schema.fields.map(\.name))) {
            try HotSpotTableSelection.select(from: data, valueField: "speed")
        }
        do {
            _ = try HotSpotTableSelection.select(from: data, valueField: "when")
            Issue.record("a date is not a value")
        } catch {
            #expect(error == .nonNumericValueField(name: "when", type: "esriFieldTypeDate"))
            #expect(error.description == "value field 'when' is esriFieldTypeDate, not a number")
        }
        do {
            _ = try HotSpotTableSelection.select(from: data, whereClause: "gust > 3")
            Issue.record("unknown field")
        } catch {
            guard case .invalidWhere(let reason) = error else {
                Issue.record("not classified as a bad where clause: \(error)")
                return
            }
            #expect(reason.contains("gust"))
        }
        let untimed = try table(incidentLines(10), mapping: FeatureColumnMapping(x: "east", y: "north", noTime: true, wkid: 2913))
        let extent = try TimeExtent(start: 0, end: 1)
        do {
            _ = try HotSpotTableSelection.select(from: untimed, timeExtent: extent)
            Issue.record("no time field")
        } catch {
            #expect(error == .noTimeField(table: untimed.name))
            #expect(error.description.contains("time field"))
        }
    }

    /// Web Mercator points are read as WGS84 (the inverse spherical Mercator, written here) and analysed
    /// geographically, results written in the input's Web Mercator by default; a processing reference
    /// changes how they are measured; a bogus WKID is refused by name.
    @Test func webMercatorIsReadAsWGS84() throws {
        let lines = ["x,y"] + (0..<5).map { i in "\(-12_400_000.0 + Double(i) * 1000),\(4_900_000.0 + Double(i) * 500)" }
        let data = try table(lines, mapping: FeatureColumnMapping(x: "x", y: "y", wkid: 102100))
        let selection = try HotSpotTableSelection.select(from: data)
        #expect(selection.reading.coordinates == .geographic && selection.reading.convertsInput)
        #expect(selection.reading.processingWKID == 4326 && selection.reading.outputWKID == 3857)
        let r = 6_378_137.0
        for i in 0..<5 {
            let x = -12_400_000.0 + Double(i) * 1000, y = 4_900_000.0 + Double(i) * 500
            let longitude = x / r * 180 / .pi
            let latitude = (2 * atan(exp(y / r)) - .pi / 2) * 180 / .pi
            #expect(abs(selection.input.x[i] - longitude) < 1e-9 && abs(selection.input.y[i] - latitude) < 1e-9)
        }
        #expect(try HotSpotPointReading(wkid: nil).coordinates == .geographic)
        #expect(try HotSpotPointReading(wkid: 2913).coordinates == .projected)
        #expect(try HotSpotPointReading(wkid: 2913).distanceUnit == "foot")
        #expect(try HotSpotPointReading(wkid: 4269).coordinates == .geographic)
        let inMercator = try HotSpotPointReading(wkid: 4326, processing: 3857)
        #expect(inMercator.coordinates == .projected && inMercator.processingWKID == 3857 && inMercator.distanceUnit == "metre")
        #expect(try HotSpotPointReading(wkid: 2913, processing: 4326).coordinates == .geographic)
        #expect(throws: ProjectionError.self) { try HotSpotPointReading(wkid: 99999) }
        #expect(throws: ProjectionError.self) { try HotSpotPointReading(wkid: 2913, processing: 99999) }
    }

    /// The progress throttle lets through the first report of each stage and then steps of 10 %.
    @Test func progressThrottle() {
        var throttle = HotSpotProgressThrottle(step: 0.1)
        let reports: [(Double, HotSpotMonitor.Stage)] = [(0, .aggregating), (0.01, .aggregating), (0.05, .indexing), (0.1, .indexing),
                                                         (0.16, .indexing), (0.17, .choosingDistanceBand), (0.2, .choosingDistanceBand),
                                                         (0.28, .choosingDistanceBand), (0.29, .choosingDistanceBand)]
        let passed = reports.filter { throttle.offer($0.0, $0.1) }.map(\.0)
        #expect(passed == [0, 0.05, 0.16, 0.17, 0.28])
    }
}
