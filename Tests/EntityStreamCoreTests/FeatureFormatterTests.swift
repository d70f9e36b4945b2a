import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamProjection
import Testing
import EntityStreamModel

@Suite("Features for a GIS: GeoJSON and CSV", .bounded)
struct FeatureFormatterTests {
    private func csv(_ features: [AnalysisFeature], coordinates: SpatialReference? = nil) -> (text: String, dropped: Int) {
        var formatter = FeatureFormatter(kind: .csv, schema: Schema(fields: []), coordinates: coordinates)
        var writer = JSONWriter()
        for feature in features {
            formatter.append(StreamEvent(time: 0, payload: .analysis(AnalysisEvent(job: .int(1), command: "query", result: .feature(feature)))),
                             to: &writer)
        }
        return (String(decoding: writer.bytes, as: UTF8.self), formatter.droppedValues)
    }

    /// The header comes from the first feature; cells are quoted only when they must be (RFC 4180, CRLF); nulls and
    /// non-finite numbers are empty; a value with no column is counted, never silently lost.
    @Test func rowsAndQuoting() {
        let (text, dropped) = csv([
            AnalysisFeature(geometry: .point(Point(x: 1.5, y: -2)), attributes: JSONObject([
                ("name", .string("a, \"b\"")), ("n", .int(3)), ("z", .null), ("p", .double(.nan)), ("ok", .bool(true))])),
            AnalysisFeature(geometry: nil, attributes: JSONObject([("n", .int(4)), ("extra", .int(9)), ("name", .string("line\nbreak"))])),
        ])
        #expect(text == "x,y,name,n,z,p,ok\r\n1.5,-2.0,\"a, \"\"b\"\"\",3,,,true\r\n,,\"line\nbreak\",4,,,\r\n")
        #expect(dropped == 1)
    }

    /// A polygon's row is at the mean of its ring's corners (a fishnet cell's centre), the closing corner counted
    /// once; with WGS84 asked for, that centre is converted (Oregon North feet, checked with the Lambert formulas).
    @Test func polygonCentre() {
        let ring = [(0.0, 0.0), (0, 10), (10, 10), (10, 0), (0, 0)].map { AnalysisGeometry.Coordinate(x: $0.0 + 7_650_000, y: $0.1 + 680_000) }
        let feature = AnalysisFeature(geometry: .polygon(rings: [ring], wkid: 4152), attributes: JSONObject([("JOIN_COUNT", .int(2))]))
        #expect(csv([feature]).text == "x,y,JOIN_COUNT\r\n7650005.0,680005.0,2\r\n")
        let feet = AnalysisFeature(geometry: .polygon(rings: [ring], wkid: 2913), attributes: JSONObject([("JOIN_COUNT", .int(2))]))
        let row = csv([feet], coordinates: SpatialReference(wkid: 4152)).text.split(separator: "\r\n")[1].split(separator: ",")
        let back = ProjectionOracles.oregonNorthFeet(longitude: Double(row[0]) ?? 0, latitude: Double(row[1]) ?? 0)
        #expect(abs(back.x - 7_650_005) < 0.001 && abs(back.y - 680_005) < 0.001)
    }
}
