import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Analysis results as a CSV table", .bounded)
struct AnalysisCSVTableTests {
    /// The header comes from the first feature; cells are quoted only when they must be; nulls and non-finite numbers are empty.
    @Test func rowsAndQuoting() {
        var table = AnalysisCSVTable()
        var writer = JSONWriter()
        table.append(AnalysisFeature(geometry: .point(Point(x: 1.5, y: -2)), attributes: JSONObject([
            ("name", .string("a, \"b\"")), ("n", .int(3)), ("z", .null), ("p", .double(.nan)), ("ok", .bool(true))])), to: &writer)
        table.append(AnalysisFeature(geometry: nil, attributes: JSONObject([("n", .int(4)), ("extra", .int(9)), ("name", .string("line\nbreak"))])), to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == "x,y,name,n,z,p,ok\n1.5,-2.0,\"a, \"\"b\"\"\",3,,,true\n,,\"line\nbreak\",4,,,\n")
        #expect(table.columns == ["name", "n", "z", "p", "ok"] && table.droppedAttributes == 1)
    }

    /// A polygon's row is at the mean of its ring's corners (a fishnet cell's centre), the closing corner counted once.
    @Test func polygonCentre() {
        var table = AnalysisCSVTable()
        var writer = JSONWriter()
        let ring = [(0.0, 0.0), (0, 10), (10, 10), (10, 0), (0, 0)].map { AnalysisGeometry.Coordinate(x: $0.0, y: $0.1) }
        table.append(AnalysisFeature(geometry: .polygon(rings: [ring], wkid: 2913), attributes: JSONObject([("JOIN_COUNT", .int(2))])), to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "x,y,JOIN_COUNT\n5.0,5.0,2\n")
    }
}
