import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

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
        let row = ObservationResult(entity: EntityReference(entityID: 4, trackID: .string("TRUCK 3")), observation: 812, received: 86_400_000,
                                    feature: AnalysisFeature(geometry: .point(Point(x: -111.9, y: 40.6, wkid: 4326)),
                                                             attributes: JSONObject([("speed", .double(12.5)), ("name", .string("a"))])))
        let event = AnalysisEvent(job: .int(7), command: "query-observations", result: .observation(row))
        var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
        var writer = JSONWriter()
        formatter.append(StreamEvent(time: 1_767_225_600_000, payload: .analysis(event)), to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"event":"analysis","id":7,"command":"query-observations","phase":"result","track":"TRUCK 3","entity":4,"observation":812,"received":"1970-01-02T00:00:00.000Z","receivedEpoch":86400000,"time":"2026-01-01T00:00:00.000Z","epoch":1767225600000,"geometry":{"#))
        let object = try line(event, format: .esri)
        #expect((object["attributes"] as? [String: Any])?["speed"] as? Double == 12.5)
        #expect((object["geometry"] as? [String: Any])?["x"] as? Double == -111.9)
    }

    /// A polygon result is Esri rings with its spatial reference; lines without a feature have no geometry member.
    @Test func polygonsAndSummaries() throws {
        let cell = try line(AnalysisEvent(job: .string("h"), command: "hotspots",
                                          result: .feature(AnalysisFeature(geometry: square, attributes: JSONObject([("Gi_Bin", .int(3))])))), format: .esri)
        let geometry = try #require(cell["geometry"] as? [String: Any])
        let rings = try #require(geometry["rings"] as? [[[Double]]])
        #expect(rings == [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]])
        #expect((geometry["spatialReference"] as? [String: Any])?["wkid"] as? Int == 2913)
        let summary = try line(AnalysisEvent(job: .int(1), command: "hotspots", summary: AnalysisSummary(TestReport(JSONObject([("count", .int(3))])))), format: .esri)
        #expect(summary["count"] as? Int == 3 && summary["phase"] as? String == "summary" && summary["geometry"] == nil)
    }

    /// As GeoJSON each result is a Feature with its position as id: Web Mercator points and polygons become WGS84
    /// (polygons counter-clockwise), the line's members are es_… properties (an object flattened, the epoch twin of
    /// an ISO time left out) that never rename an attribute, dates are ISO text, a key once seen stays on every
    /// later feature (null when absent); lines that are not results go to the side as Esri JSON.
    @Test func geoJSONLines() throws {
        var formatter = JSONLinesFormatter(format: .geojson, schema: Schema(fields: []))
        var output = JSONWriter(), side = JSONWriter()
        func feature(_ analysis: AnalysisEvent) throws -> [String: Any] {
            output.removeAll()
            #expect(formatter.append(StreamEvent(time: 1_767_225_600_000, payload: .analysis(analysis)), to: &output, side: &side))
            return try #require(JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
        }
        let row = ObservationResult(entity: EntityReference(entityID: 9, trackID: .string("T")), observation: 3, received: 1_767_225_600_000,
                                    feature: AnalysisFeature(geometry: .point(Point(x: 0, y: 0, wkid: 3857)),
                                                             attributes: JSONObject([("phase", .string("x")), ("es_track", .string("mine")), ("when", .int(0))]),
                                                             dateAttributes: ["when"]))
        let point = try feature(AnalysisEvent(job: .int(2), command: "query-observations", result: .observation(row)))
        #expect(point["type"] as? String == "Feature" && point["id"] as? Int == 1)
        #expect((point["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [0, 0])
        let properties = try #require(point["properties"] as? [String: Any])
        #expect(properties["es_track"] as? String == "T" && properties["es_received"] as? String == "2026-01-01T00:00:00.000Z")
        #expect(properties["es_receivedEpoch"] == nil && properties["es_entity"] as? Int == 9 && properties["es_observation"] as? Int == 3)
        #expect(properties["phase"] as? String == "x", "a data property named like a JSON-lines member keeps its name")
        #expect(properties["attribute_es_track"] as? String == "mine" && properties["when"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(properties["id"] == nil && properties["event"] == nil && properties["time"] == nil)
        // A Web Mercator square (1 km) comes out in WGS84 longitude/latitude (the inverse spherical formula, written here).
        let ring = [(0.0, 0.0), (0.0, 1000.0), (1000.0, 1000.0), (1000.0, 0.0), (0.0, 0.0)].map { AnalysisGeometry.Coordinate(x: $0.0, y: $0.1) }
        let polygon = try feature(AnalysisEvent(job: .int(3), command: "hotspots",
                                                result: .feature(AnalysisFeature(geometry: .polygon(rings: [ring], wkid: 102100), attributes: JSONObject()))))
        #expect(polygon["id"] as? Int == 2)
        let coordinates = try #require((polygon["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
        let r = 6_378_137.0
        let expected = ring.reversed().map { [$0.x / r * 180 / .pi, (2 * atan(exp($0.y / r)) - .pi / 2) * 180 / .pi] }
        #expect(coordinates.count == 1 && coordinates[0].count == 5)
        for (got, want) in zip(coordinates[0], expected) { #expect(abs(got[0] - want[0]) < 1e-12 && abs(got[1] - want[1]) < 1e-12) }
        let later = try #require(polygon["properties"] as? [String: Any])
        #expect(Set(later.keys) == Set(properties.keys) && later.values.allSatisfy { $0 is NSNull })
        #expect(!formatter.append(StreamEvent(time: 0, payload: .analysis(AnalysisEvent(job: .int(3), command: "hotspots", content: .accepted(stream: nil)))),
                                  to: &output, side: &side))
        let accepted = try #require(JSONSerialization.jsonObject(with: Data(side.bytes)) as? [String: Any])
        #expect(accepted["phase"] as? String == "accepted" && accepted["event"] as? String == "analysis")
    }

    /// A statistics record is a feature without geometry (GeoJSON) or a row (CSV): its group values then its
    /// statistics, dates as ISO text; a CSV with no record gets its header from the summary.
    @Test func statisticsRecords() throws {
        let record = AnalysisEvent(job: .int(1), command: "statistics",
                                   result: .statistics(StatisticsRecord(group: [NamedValue(name: "team", value: .string("A"))],
                                                                        statistics: [NamedValue(name: "n", value: .int(2)),
                                                                                     NamedValue(name: "last", value: .date(milliseconds: 86_400_000))])))
        #expect(try line(record, format: .esri)["statistics"] as? [String: Int] == ["n": 2, "last": 86_400_000], "a date is epoch ms in Esri JSON")
        var geojson = JSONLinesFormatter(format: .geojson, schema: Schema(fields: []))
        var output = JSONWriter(), side = JSONWriter()
        geojson.append(StreamEvent(time: 0, payload: .analysis(record)), to: &output, side: &side)
        let feature = try #require(JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
        #expect(feature["geometry"] is NSNull)
        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties.count == 3 && properties["team"] as? String == "A" && properties["n"] as? Int == 2)
        #expect(properties["last"] as? String == "1970-01-02T00:00:00.000Z")
        var csv = JSONLinesFormatter(format: .csv, schema: Schema(fields: []))
        output.removeAll()
        csv.append(StreamEvent(time: 0, payload: .analysis(record)), to: &output, side: &side)
        #expect(String(decoding: output.bytes, as: UTF8.self) == "team,n,last\r\nA,2,1970-01-02T00:00:00.000Z\r\n")
        var empty = JSONLinesFormatter(format: .csv, schema: Schema(fields: []))
        output.removeAll()
        let summary = AnalysisEvent(job: .int(1), command: "statistics", summary: AnalysisSummary(TestReport(columns: ["team", "n"])))
        empty.append(StreamEvent(time: 0, payload: .analysis(summary)), to: &output, side: &side)
        #expect(String(decoding: output.bytes, as: UTF8.self) == "team,n\r\n")
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

@Suite("Identify answers as lines", .bounded)
struct IdentifyLineTests {
    private let point = IdentifyResult.Point(x: 441000, y: 3751000, wkid: 26711, id: .string("p"))

    /// A cell is drawn as its extent and carries its values, column, row and extent; off the raster the point is
    /// drawn with the raster's attributes as null; a failure draws nothing; an output conversion that failed says why.
    @Test func answersInEsriJSON() throws {
        let cell = IdentifyResult.Cell(values: [NamedValue(name: "Band_0", value: .int(148)), NamedValue(name: "Pixel.Type", value: .string("uint8"))],
                                       column: 4, row: 5, xmin: 440960, ymin: 3750960, xmax: 441020, ymax: 3751020)
        let drawn = IdentifyResult(line: nil, point: point, answer: .cell(cell), geometry: .point(Point(x: 1, y: 2, wkid: 26711)))
        #expect(drawn.members == JSONObject([("point", .object(JSONObject([("x", .double(441000)), ("y", .double(3751000)), ("sr", .int(26711)),
                                                                           ("id", .string("p"))])))]))
        #expect(drawn.feature?.attributes.keys == ["Band_0", "Pixel.Type", "column", "row", "xmin", "ymin", "xmax", "ymax"])
        #expect(drawn.feature?.attributes["Band_0"] == .int(148) && drawn.feature?.attributes["ymax"] == .double(3751020))
        let off = IdentifyResult(line: 3, point: point, answer: .noCell(hint: "swap x and y", bands: 2), geometry: .point(Point(x: 1, y: 2)))
        #expect(off.members.keys == ["line", "point", "cell", "hint"] && off.members["cell"] == .null)
        #expect(off.feature?.attributes.keys == ["Band_0", "Band_1", "Pixel.Type", "column", "row", "xmin", "ymin", "xmax", "ymax"])
        #expect(off.feature?.attributes.allSatisfy { $0.value == .null } == true)
        let failed = IdentifyResult(line: 2, point: nil, answer: .failed("line 2: not JSON"))
        #expect(failed.members == JSONObject([("line", .int(2)), ("error", .string("line 2: not JSON"))]) && failed.feature == nil)
        var unconverted = drawn
        unconverted.outputError = "outSR: no transformation"
        #expect(unconverted.feature == nil && unconverted.members["error"] == .string("outSR: no transformation"))
    }

    /// As a CSV row: x and y, the echoed point flattened (es_point_…), a hint, then the raster's attributes.
    @Test func answerAsACSVRow() {
        var formatter = JSONLinesFormatter(format: .csv, schema: Schema(fields: []))
        var output = JSONWriter(), side = JSONWriter()
        let off = IdentifyResult(line: 1, point: point, answer: .noCell(hint: "a \"hint\"", bands: 1), geometry: .point(Point(x: 1.5, y: 2.5)))
        formatter.append(StreamEvent(time: 0, payload: .analysis(AnalysisEvent(job: .int(1), command: "identify", result: .identify(off)))),
                         to: &output, side: &side)
        #expect(String(decoding: output.bytes, as: UTF8.self) ==
                "x,y,es_line,es_point_x,es_point_y,es_point_sr,es_point_id,es_hint,Band_0,Pixel.Type,column,row,xmin,ymin,xmax,ymax\r\n" +
                "1.5,2.5,1,441000.0,3751000.0,26711,p,\"a \"\"hint\"\"\",,,,,,,,\r\n")
    }
}
