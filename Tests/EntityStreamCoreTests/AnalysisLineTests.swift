import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing

/// Formats one analysis event and parses the line back with Foundation.
private func line(_ analysis: AnalysisEvent, format: OutputFormat) throws -> [String: Any] {
    var formatter = JSONLinesFormatter(format: format, schema: Schema(fields: []))
    var writer = JSONWriter()
    formatter.append(StreamEvent(time: 1_767_225_600_000, payload: .analysis(analysis)), to: &writer)
    #expect(writer.bytes.last == UInt8(ascii: "\n"))
    #expect(!writer.bytes.dropLast().contains(UInt8(ascii: "\n")))
    return try #require(JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
}

private let square: AnalysisGeometry = .polygon(rings: [[.init(x: 0, y: 0), .init(x: 0, y: 10), .init(x: 10, y: 10), .init(x: 10, y: 0), .init(x: 0, y: 0)]], wkid: 2913)

@Suite("Analysis lines", .bounded)
struct AnalysisLineTests {
    /// An Esri analysis line carries the job id, command, phase, its members in order, the time, then geometry and attributes.
    @Test func esriResultLine() throws {
        let event = AnalysisEvent(job: .int(7), command: "query-observations", phase: .result,
                                  members: JSONObject([("track", .string("TRUCK 3"))]),
                                  feature: AnalysisFeature(geometry: .point(Point(x: -111.9, y: 40.6, wkid: 4326)),
                                                           attributes: JSONObject([("speed", .double(12.5)), ("name", .string("a"))])))
        var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
        var writer = JSONWriter()
        formatter.append(StreamEvent(time: 1_767_225_600_000, payload: .analysis(event)), to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"event":"analysis","id":7,"command":"query-observations","phase":"result","track":"TRUCK 3","time":"2026-01-01T00:00:00.000Z","epoch":1767225600000,"geometry":{"#))
        let object = try line(event, format: .esri)
        #expect((object["attributes"] as? [String: Any])?["speed"] as? Double == 12.5)
        #expect((object["geometry"] as? [String: Any])?["x"] as? Double == -111.9)
    }

    /// A polygon result is Esri rings with its spatial reference; lines without a feature have no geometry member.
    @Test func polygonsAndSummaries() throws {
        let cell = try line(AnalysisEvent(job: .string("h"), command: "hotspots", phase: .result,
                                          feature: AnalysisFeature(geometry: square, attributes: JSONObject([("Gi_Bin", .int(3))]))), format: .esri)
        let geometry = try #require(cell["geometry"] as? [String: Any])
        let rings = try #require(geometry["rings"] as? [[[Double]]])
        #expect(rings == [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]])
        #expect((geometry["spatialReference"] as? [String: Any])?["wkid"] as? Int == 2913)
        let summary = try line(AnalysisEvent(job: .int(1), command: "hotspots", phase: .summary, members: JSONObject([("count", .int(3))])), format: .esri)
        #expect(summary["count"] as? Int == 3 && summary["phase"] as? String == "summary" && summary["geometry"] == nil)
    }

    /// As GeoJSON every analysis line is a Feature: Web Mercator points become WGS84, polygons turn counter-clockwise,
    /// members and attributes are properties, and an attribute named like a member is prefixed.
    @Test func geoJSONLines() throws {
        let point = try line(AnalysisEvent(job: .int(2), command: "query", phase: .result,
                                           feature: AnalysisFeature(geometry: .point(Point(x: 0, y: 0, wkid: 3857)),
                                                                    attributes: JSONObject([("phase", .string("x")), ("a", .int(1))]))), format: .geojson)
        #expect(point["type"] as? String == "Feature")
        #expect((point["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [0, 0])
        let properties = try #require(point["properties"] as? [String: Any])
        #expect(properties["event"] as? String == "analysis" && properties["phase"] as? String == "result")
        #expect(properties["attribute_phase"] as? String == "x" && properties["a"] as? Int == 1 && properties["id"] as? Int == 2)
        // A Web Mercator square (1 km) comes out in WGS84 longitude/latitude (the inverse spherical formula, written here).
        let ring = [(0.0, 0.0), (0.0, 1000.0), (1000.0, 1000.0), (1000.0, 0.0), (0.0, 0.0)].map { AnalysisGeometry.Coordinate(x: $0.0, y: $0.1) }
        let polygon = try line(AnalysisEvent(job: .int(3), command: "hotspots", phase: .result,
                                             feature: AnalysisFeature(geometry: .polygon(rings: [ring], wkid: 102100), attributes: JSONObject())),
                               format: .geojson)
        let coordinates = try #require((polygon["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
        let r = 6_378_137.0
        let expected = ring.reversed().map { [$0.x / r * 180 / .pi, (2 * atan(exp($0.y / r)) - .pi / 2) * 180 / .pi] }
        #expect(coordinates.count == 1 && coordinates[0].count == 5)
        for (got, want) in zip(coordinates[0], expected) { #expect(abs(got[0] - want[0]) < 1e-12 && abs(got[1] - want[1]) < 1e-12) }
        let accepted = try line(AnalysisEvent(job: .int(3), command: "hotspots", phase: .accepted), format: .geojson)
        #expect(accepted["geometry"] is NSNull)
    }

    /// A status change about an analysis's remote service names its source.
    @Test func statusNamesItsSource() throws {
        var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
        var writer = JSONWriter()
        formatter.append(StreamEvent(time: 0, payload: .status(ConnectionStatusChange(status: .connected, attempt: 0, url: "http://x/MapServer/0",
                                                                                      error: nil, time: 0, source: "layer http://x/MapServer/0"))), to: &writer)
        let object = try #require(JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(object["source"] as? String == "layer http://x/MapServer/0" && object["status"] as? String == "connected")
    }
}
