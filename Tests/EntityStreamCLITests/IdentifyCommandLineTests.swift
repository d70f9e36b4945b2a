import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamRaster
import Testing

/// An 8×6 float32 raster in WGS84 over lon −112…−111, lat 40…40.75 (cells of
/// 0.125°, exact in binary): cell (c, r) holds 1000 + 10·r + c + 0.5, except
/// cell (3, 2), which is NoData (−9999). Written by the test with libtiff.
private enum TestRaster {
    static let originX = -112.0, originY = 40.75, cellSize = 0.125, width = 8, height = 6

    static func value(_ column: Int, _ row: Int) -> Double? {
        column == 3 && row == 2 ? nil : 1000 + 10 * Double(row) + Double(column) + 0.5
    }

    static func write(in directory: Scratch) throws -> String {
        let path = directory.file("dem.tif")
        let image = RasterImage(width: width, height: height, pixelType: .float32) { _, column, row in value(column, row) ?? -9999 }
        let transform = try #require(GeoTransform([originX, cellSize, 0, originY, 0, -cellSize]))
        try GeoTIFFWriter.write(image, to: path, options: GeoTIFFWriteOptions(
            compression: .deflate, georeferencing: .geoTransform(transform), crs: .geographic(epsg: 4326), noData: NoDataValue(-9999)))
        return path
    }

    static func center(_ column: Int, _ row: Int) -> (x: Double, y: Double) {
        (originX + (Double(column) + 0.5) * cellSize, originY - (Double(row) + 0.5) * cellSize)
    }

    /// The cell of a lon/lat by GDAL's rule (floor of the inverse geotransform), or nil off the raster.
    static func cell(_ x: Double, _ y: Double) -> (column: Int, row: Int)? {
        let column = ((x - originX) / cellSize).rounded(.down), row = ((originY - y) / cellSize).rounded(.down)
        guard column >= 0, row >= 0, column < Double(width), row < Double(height) else { return nil }
        return (Int(column), Int(row))
    }

    /// Spherical Web Mercator (EPSG:3857) of a lon/lat, by its formula.
    static func webMercator(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        let radius = 6_378_137.0
        return (radius * lon * .pi / 180, radius * log(tan(.pi / 4 + lat * .pi / 360)))
    }
}

/// A fresh directory, removed when released.
private final class Scratch {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("identify-cli-\(UUID().uuidString)").path
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
}

private func objects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func results(_ lines: [[String: Any]]) -> [[String: Any]] {
    lines.filter { ($0["phase"] ?? ($0["properties"] as? [String: Any])?["phase"]) as? String == "result" }
}

private func attributes(_ line: [String: Any]) -> [String: Any] { line["attributes"] as? [String: Any] ?? [:] }

/// One observation per line as Esri feature JSON, the track in `name`.
private func recording(_ features: [(name: String, geometry: String)], in directory: Scratch) throws -> String {
    let path = directory.file("tracks-\(UUID().uuidString).json")
    try features.map { #"{"geometry":\#($0.geometry),"attributes":{"name":"\#($0.name)"}}"# }.joined(separator: "\n")
        .write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite("entitystream identify, --raster and --enrich", .bounded(.io))
struct IdentifyCommandLineTests {
    /// --at points are answered in order with the values the test wrote; left/top edges and the top-left corner are inside,
    /// right/bottom edges and the other corners have no cell, and a NoData cell says so.
    @Test func pointsEdgesCornersAndNoData() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let points: [(x: Double, y: Double)] = [
            TestRaster.center(1, 1), (-112, 40.75), (-111.75, TestRaster.center(0, 3).y), (TestRaster.center(5, 0).x, 40.25),
            (-111, 40.5), (-111.5, 40), (-111, 40), (-112, 40), (-111, 40.75), (-113, 41), TestRaster.center(3, 2),
            (-111.000000001, 40.000000001),
        ]
        let result = try await CommandLineTool.run("entitystream", ["identify", path] + points.flatMap { ["--at", "\($0.x),\($0.y)"] })
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(lines.first?["phase"] as? String == "accepted" && lines.last?["phase"] as? String == "summary")
        let answers = results(lines)
        #expect(answers.count == points.count)
        var expectedCells = 0, expectedNoData = 0
        for (point, answer) in zip(points, answers) {
            let echoed = answer["point"] as? [String: Any]
            #expect(echoed?["x"] as? Double == point.x && echoed?["y"] as? Double == point.y && echoed?["sr"] as? Int == 4326)
            guard let cell = TestRaster.cell(point.x, point.y) else {
                #expect(answer.keys.contains("cell") && answer["cell"] is NSNull, "\(point)")
                let geometry = answer["geometry"] as? [String: Any]
                #expect(geometry?["x"] as? Double == point.x && geometry?["y"] as? Double == point.y, "\(point)")
                continue
            }
            let (column, row) = cell
            expectedCells += 1
            let values = attributes(answer)
            #expect(values["column"] as? Int == column && values["row"] as? Int == row, "\(point)")
            #expect(values["Pixel.Type"] as? String == "float32")
            if let value = TestRaster.value(column, row) {
                #expect(values["Band_0"] as? Double == value, "\(point)")
                #expect(values["NoData"] == nil)
            } else {
                expectedNoData += 1
                #expect(values["Band_0"] is NSNull && values["NoData"] as? Bool == true)
            }
            let xmin = TestRaster.originX + Double(column) * TestRaster.cellSize, ymax = TestRaster.originY - Double(row) * TestRaster.cellSize
            #expect(values["xmin"] as? Double == xmin && values["ymax"] as? Double == ymax)
            #expect(values["xmax"] as? Double == xmin + TestRaster.cellSize && values["ymin"] as? Double == ymax - TestRaster.cellSize)
            let geometry = answer["geometry"] as? [String: Any]
            let ring = (geometry?["rings"] as? [[[Double]]])?.first
            #expect(ring == [[xmin, ymax - 0.125], [xmin, ymax], [xmin + 0.125, ymax], [xmin + 0.125, ymax - 0.125], [xmin, ymax - 0.125]])
            #expect((geometry?["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        }
        #expect(expectedCells == 6 && expectedNoData == 1)
        let summary = lines.last ?? [:]
        #expect(summary["points"] as? Int == points.count && summary["cells"] as? Int == expectedCells)
        #expect(summary["noData"] as? Int == expectedNoData && summary["noCell"] as? Int == points.count - expectedCells && summary["errors"] as? Int == 0)
    }

    /// --in-sr 3857 points (made by the Web Mercator formula) land in the right cells; GeoJSON output (features
    /// only on stdout) gives the cell polygon back in lon/lat; --out-sr 4326 answers in lon/lat in Esri JSON too.
    @Test func webMercatorPointsAsGeoJSON() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let cells = [(0, 0), (7, 5), (4, 3)]
        let arguments = cells.flatMap { cell -> [String] in
            let center = TestRaster.center(cell.0, cell.1)
            let point = TestRaster.webMercator(center.x, center.y)
            return ["--at", "\(point.x),\(point.y)"]
        }
        let result = try await CommandLineTool.run("entitystream", ["identify", path, "--in-sr", "3857", "--format", "geojson"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        let answers = objects(result.standardOutput)
        #expect(answers.count == cells.count && answers.allSatisfy { $0["type"] as? String == "Feature" })
        #expect(objects(result.standardError).contains { $0["phase"] as? String == "summary" })
        let degrees = try await CommandLineTool.run("entitystream", ["identify", path, "--in-sr", "3857", "--out-sr", "4326"] + arguments)
        #expect(degrees.status == 0, "\(degrees.standardError)")
        for (cell, answer) in zip(cells, results(objects(degrees.standardOutput))) {
            let geometry = answer["geometry"] as? [String: Any]
            #expect((geometry?["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
            let ring = (geometry?["rings"] as? [[[Double]]])?.first ?? []
            let west = TestRaster.originX + Double(cell.0) * 0.125
            #expect(abs((ring.map { $0[0] }.min() ?? 0) - west) < 1e-9, "\(ring)")
        }
        for (cell, answer) in zip(cells, answers) {
            let properties = answer["properties"] as? [String: Any] ?? [:]
            #expect(properties["column"] as? Int == cell.0 && properties["row"] as? Int == cell.1)
            #expect(properties["Band_0"] as? Double == TestRaster.value(cell.0, cell.1))
            let lower = TestRaster.webMercator(TestRaster.originX + Double(cell.0) * 0.125, TestRaster.originY - Double(cell.1 + 1) * 0.125)
            #expect(abs((properties["xmin"] as? Double ?? 0) - lower.x) < 1e-6 && abs((properties["ymin"] as? Double ?? 0) - lower.y) < 1e-6)
            let geometry = answer["geometry"] as? [String: Any]
            #expect(geometry?["type"] as? String == "Polygon")
            let ring = (geometry?["coordinates"] as? [[[Double]]])?.first ?? []
            #expect(ring.count == 5)
            let xs = ring.map { $0[0] }, ys = ring.map { $0[1] }
            let west = TestRaster.originX + Double(cell.0) * 0.125, north = TestRaster.originY - Double(cell.1) * 0.125
            #expect(abs((xs.min() ?? 0) - west) < 1e-9 && abs((xs.max() ?? 0) - (west + 0.125)) < 1e-9)
            #expect(abs((ys.max() ?? 0) - north) < 1e-9 && abs((ys.min() ?? 0) - (north - 0.125)) < 1e-9)
        }
    }

    /// Points as JSON lines on stdin: each line answered in order; a bad line is an error naming its line number and the rest go on.
    @Test func stdinLinesWithBadOnes() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let a = TestRaster.center(2, 1), b = TestRaster.center(6, 4)
        let mercator = TestRaster.webMercator(b.x, b.y)
        let input = [
            #"{"x":\#(a.x),"y":\#(a.y)}"#,
            "",
            "not json",
            #"{"x":1}"#,
            #"{"x":\#(mercator.x),"y":\#(mercator.y),"sr":3857,"id":"m"}"#,
            "[1,2]",
            #"{"x":\#(a.x),"y":\#(a.y),"lat":3}"#,
            #"{"x":-120,"y":45,"sr":{"wkid":4326}}"#,
            #"{"x":1,"y":95,"sr":4326}"#,
        ].joined(separator: "\n") + "\n"
        let result = try await CommandLineTool.run("entitystream", ["identify", path], input: input)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        let answers = results(lines)
        #expect(answers.map { $0["line"] as? Int ?? 0 } == [1, 3, 4, 5, 6, 7, 8, 9])
        #expect(attributes(answers[0])["Band_0"] as? Double == TestRaster.value(2, 1))
        for bad in [1, 2, 4, 5] {
            let message = answers[bad]["error"] as? String ?? ""
            #expect(message.hasPrefix("line \(answers[bad]["line"] as? Int ?? 0):"), "\(message)")
            #expect(answers[bad]["geometry"] == nil)
        }
        #expect((answers[2]["error"] as? String)?.contains("missing \"y\"") == true)
        #expect((answers[5]["error"] as? String)?.contains("unknown member 'lat'") == true)
        #expect(attributes(answers[3])["Band_0"] as? Double == TestRaster.value(6, 4))
        #expect((answers[3]["point"] as? [String: Any])?["id"] as? String == "m")
        #expect(answers[6]["cell"] is NSNull)
        // Latitude 95 is outside the raster's CRS: no cell (WGS84 in a WGS84 raster needs no transformation).
        #expect(answers[7]["cell"] is NSNull)
        let summary = lines.last ?? [:]
        #expect(summary["points"] as? Int == 8 && summary["errors"] as? Int == 4 && summary["cells"] as? Int == 2 && summary["noCell"] as? Int == 2)
    }

    /// Usage errors exit 2 with one line (no raster, a missing file, a bad --at, an unknown --sr); a file that is not a
    /// GeoTIFF exits 1; a TIFF without georeferencing fails the job with the reason.
    @Test func usageAndRuntimeErrors() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let usage: [([String], String)] = [
            (["identify"], "missing the RASTER"),
            (["identify", path, "--at", "1"], "--at expects x,y"),
            (["identify", path, "--at", "a,b"], "--at expects x,y"),
            (["identify", path, "--at", "1,2,3"], "--at expects x,y"),
            (["identify", path, "--at", "nan,1"], "--at expects x,y"),
            (["identify", path, "--at"], "--at needs a value"),
            (["identify", path, "--at", "1,2", "--in-sr", "999999"], "--in-sr: unknown spatial reference wkid 999999"),
            (["identify", path, "--at", "1,2", "--in-sr", "0"], "--in-sr: '0' is not a spatial reference"),
            (["identify", path, "--at", "1,2", "--out-sr", "abc"], "--out-sr: 'abc' is not a spatial reference"),
            (["identify", path, "--at", "1,2", "--out-sr", "3857", "--format", "geojson"], "RFC 7946"),
            (["identify", path, "--at", "1,2", "--bands", "1"], "unknown option '--bands'"),
            (["identify", path, path, "--at", "1,2"], "give one raster"),
        ]
        for (arguments, message) in usage {
            let result = try await CommandLineTool.run("entitystream", arguments, input: "")
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.contains(message) && result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
        // A raster that cannot be read (missing, a directory) is a runtime failure, 1, as replay and query say it.
        let tracks = try recording([("A", #"{"x":-111.5,"y":40.5,"spatialReference":{"wkid":4326}}"#)], in: scratch)
        for unreadable in [scratch.file("missing.tif"), scratch.path] {
            let result = try await CommandLineTool.run("entitystream", ["identify", unreadable, "--at", "1,2"])
            #expect(result.status == 1 && result.standardError.contains(unreadable) && result.standardOutput.isEmpty, "\(result.standardError)")
            let session = try await CommandLineTool.run("entitystream", ["replay", tracks, "--track-field", "name", "--raster", "dem=\(unreadable)"])
            #expect(session.status == 1 && session.standardError.contains("--raster dem"), "\(session.standardError)")
        }
        let text = scratch.file("text.tif")
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        let notTIFF = try await CommandLineTool.run("entitystream", ["identify", text, "--at", "1,2"])
        #expect(notTIFF.status == 1 && notTIFF.standardError.contains("not a TIFF") && notTIFF.standardOutput.isEmpty)
        let bare = scratch.file("bare.tif")
        try GeoTIFFWriter.write(RasterImage(width: 2, height: 2, pixelType: .uint8, values: [1, 2, 3, 4]), to: bare)
        let unplaced = try await CommandLineTool.run("entitystream", ["identify", bare, "--at", "0.5,0.5"])
        #expect(unplaced.status == 1)
        #expect(objects(unplaced.standardOutput).last?["phase"] as? String == "failed")
        #expect(unplaced.standardError.contains("no georeferencing"))
    }

    /// On replay --hold, the identify command answers from a --raster through the runtime; unknown rasters are refused.
    @Test func liveCommandOnReplayHold() throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let tracks = try recording([("A", #"{"x":-111.5,"y":40.5,"spatialReference":{"wkid":4326}}"#)], in: scratch)
        let process = try RunningProcess(CommandLineTool.path("entitystream"), ["replay", tracks, "--track-field", "name", "--hold",
                                                                                "--raster", "dem=\(path)", "--events", "analysis,response"])
        let center = TestRaster.center(4, 1), mercator = TestRaster.webMercator(center.x, center.y)
        process.write(#"{"id":5,"command":"identify","raster":"dem","x":\#(center.x),"y":\#(center.y),"sr":4326}"# + "\n")
        process.write(#"{"id":6,"command":"identify","points":[{"x":\#(mercator.x),"y":\#(mercator.y),"sr":3857},{"x":0,"y":0}],"sr":4326}"# + "\n")
        process.write(#"{"id":7,"command":"identify","raster":"landcover","x":1,"y":2}"# + "\n")
        process.closeInput()
        #expect(process.wait() == 0)
        let lines = objects(process.remainingOutput())
        let five = lines.filter { $0["id"] as? Int == 5 }
        #expect(five.map { $0["phase"] as? String ?? "" } == ["accepted", "result", "summary"])
        #expect(attributes(five[1])["Band_0"] as? Double == TestRaster.value(4, 1))
        let six = results(lines.filter { $0["id"] as? Int == 6 })
        #expect(six.count == 2 && attributes(six[0])["Band_0"] as? Double == TestRaster.value(4, 1) && six[1]["cell"] is NSNull)
        let refused = lines.first { $0["id"] as? Int == 7 }
        #expect(refused?["event"] as? String == "response" && refused?["ok"] as? Bool == false)
        #expect((refused?["error"] as? String)?.contains("landcover") == true)
    }

    /// replay --enrich: every observation and entity-received line carries the cell under its point — WGS84 and Web Mercator
    /// points at every cell, a NoData cell, points off the raster and one without geometry — in both output formats.
    @Test func enrichmentOnReplay() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        var features: [(name: String, geometry: String)] = []
        var expected: [String: (column: Int, row: Int)?] = [:]
        for row in 0..<TestRaster.height {
            for column in 0..<TestRaster.width {
                let center = TestRaster.center(column, row)
                let mercator = TestRaster.webMercator(center.x, center.y)
                features.append(("w\(column).\(row)", #"{"x":\#(center.x),"y":\#(center.y),"spatialReference":{"wkid":4326}}"#))
                features.append(("m\(column).\(row)", #"{"x":\#(mercator.x),"y":\#(mercator.y),"spatialReference":{"wkid":102100}}"#))
                expected["w\(column).\(row)"] = (column, row)
                expected["m\(column).\(row)"] = (column, row)
            }
        }
        features.append(("edge", #"{"x":-111,"y":40.5,"spatialReference":{"wkid":4326}}"#))
        features.append(("far", #"{"x":10,"y":10,"spatialReference":{"wkid":4326}}"#))
        features.append(("no-sr", #"{"x":-111.9,"y":40.7}"#))
        features.append(("none", "null"))
        expected["edge"] = .some(nil)
        expected["far"] = .some(nil)
        expected["no-sr"] = .some(TestRaster.cell(-111.9, 40.7))
        expected["none"] = .some(nil)
        let tracks = try recording(features, in: scratch)
        for format in ["esri", "geojson"] {
            let result = try await CommandLineTool.run("entitystream", ["replay", tracks, "--track-field", "name", "--raster", "dem=\(path)", "--enrich", "dem",
                                                                  "--events", "observation,entity-received,error", "--format", format])
            #expect(result.status == 0, "\(result.standardError)")
            // GeoJSON: each observation once on stdout (entity-received goes to stderr with the other events).
            let lines = objects(result.standardOutput)
            #expect(lines.count == (format == "esri" ? 2 : 1) * features.count, "\(format)")
            for line in lines {
                let properties = format == "esri" ? line : line["properties"] as? [String: Any] ?? [:]
                let track = properties[format == "esri" ? "track" : "es_track"] as? String ?? ""
                let raster = properties[format == "esri" ? "raster" : "es_raster"] as? [String: Any]
                guard let cell = expected[track] else {
                    Issue.record("unexpected line \(line)")
                    continue
                }
                guard let cell else {
                    #expect(raster?["dem"] is NSNull, "\(format) \(track)")
                    continue
                }
                let (column, row) = cell
                let values = raster?["dem"] as? [String: Any]
                if let value = TestRaster.value(column, row) {
                    #expect(values?["Band_0"] as? Double == value, "\(format) \(track)")
                } else {
                    #expect(values?["Band_0"] is NSNull && values?["NoData"] as? Bool == true, "\(format) \(track)")
                }
                #expect(values?["Pixel.Type"] as? String == "float32")
            }
        }
    }

    /// A raster that cannot be opened stops the session before anything streams: exit 1 naming the raster, a missing file
    /// too (2 for a bad name); nothing is printed on stdout.
    @Test func rasterFailsAtSessionStart() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        let tracks = try recording([("A", #"{"x":-111.5,"y":40.5}"#)], in: scratch)
        let text = scratch.file("text.tif")
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        let bare = scratch.file("bare.tif")
        try GeoTIFFWriter.write(RasterImage(width: 2, height: 2, pixelType: .uint8, values: [1, 2, 3, 4]), to: bare)
        let cases: [([String], Int32, String)] = [
            (["--raster", "bad=\(text)"], 1, "--raster bad:"),
            (["--raster", "dem=\(scratch.file("missing.tif"))"], 1, "--raster dem:"),
            (["--raster", "dem=\(path)", "--enrich", "other"], 2, "--enrich other"),
            (["--raster", "bare=\(bare)", "--enrich", "bare"], 1, "--enrich bare"),
            (["--raster", "dem"], 2, "--raster expects NAME=FILE.tif"),
            (["--raster", "dem=\(path)", "--raster", "dem=\(path)"], 2, "given twice"),
        ]
        for (arguments, status, message) in cases {
            let result = try await CommandLineTool.run("entitystream", ["replay", tracks, "--track-field", "name"] + arguments)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message) && result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty, "\(arguments)")
        }
    }

    /// A raster whose EPSG code PROJ does not know is the raster's problem: with `--in-sr 4326` the
    /// command exits 1 naming the file and its coordinate system, and does not blame `--in-sr` (it
    /// used to exit 2 with "--sr 4326: unknown spatial reference EPSG:…"). Points in the raster's
    /// own coordinates are still answered.
    @Test func rasterWithAnUnknownEPSGCode() async throws {
        let scratch = try Scratch()
        let path = scratch.file("unknown-crs.tif")
        let transform = try #require(GeoTransform([500_000, 10, 0, 4_000_000, 0, -10]))
        try GeoTIFFWriter.write(RasterImage(width: 4, height: 4, pixelType: .uint8, values: (1...16).map(Double.init)), to: path,
                                options: GeoTIFFWriteOptions(georeferencing: .geoTransform(transform), crs: .projected(epsg: 29_999)))
        let fromWGS84 = try await CommandLineTool.run("entitystream", ["identify", path, "--at", "-111,40", "--in-sr", "4326"])
        #expect(fromWGS84.status == 1, "\(fromWGS84.standardError) \(fromWGS84.standardOutput)")
        #expect(!fromWGS84.standardError.contains("--in-sr"), "\(fromWGS84.standardError)")
        #expect(fromWGS84.standardError.contains(path) && fromWGS84.standardError.contains("coordinate system is unknown"), "\(fromWGS84.standardError)")
        #expect(fromWGS84.standardError.split(separator: "\n").count == 1 && fromWGS84.standardOutput.isEmpty)
        let native = try await CommandLineTool.run("entitystream", ["identify", path, "--at", "500015,3999995"])
        #expect(native.status == 0, "\(native.standardError)")
        #expect(attributes(results(objects(native.standardOutput)).first ?? [:])["Band_0"] as? Double == 2)
    }

    /// A point whose tile cannot be read (its compressed data is corrupt) is answered with the read
    /// error in its result line, the summary counts it as unreadable, and the command exits 1 with one
    /// line on stderr (it used to exit 0, the error only inside the result).
    @Test func unreadableTileExitsWithOne() async throws {
        let scratch = try Scratch()
        let path = try TestRaster.write(in: scratch)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // libtiff writes the strip's deflate stream right after the 8-byte header.
        for index in 8..<40 { bytes[index] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let center = TestRaster.center(1, 1)
        let result = try await CommandLineTool.run("entitystream", ["identify", path, "--at", "\(center.x),\(center.y)"])
        #expect(result.status == 1, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect((results(lines).first?["error"] as? String)?.contains("cannot read tile/strip") == true, "\(result.standardOutput)")
        #expect(lines.last?["phase"] as? String == "summary" && lines.last?["unreadable"] as? Int == 1)
        #expect(result.standardError.contains("could not be read") && result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    }

    /// GDAL's byte.tif (shared data): gdallocationinfo's values at pixel (10, 10) in the raster's CRS and at a WGS84 point.
    @Test(.enabled(if: SharedData.has("rasters/rasterio__byte.tif"), "\(SharedData.absentComment)"))
    func sharedByteTif() async throws {
        let input = #"{"x":441350,"y":3750690}"# + "\n" + #"{"x":-117.64,"y":33.90,"sr":4326}"# + "\n"
        let result = try await CommandLineTool.run("entitystream", ["identify", SharedData.path("rasters/rasterio__byte.tif")], input: input)
        #expect(result.status == 0, "\(result.standardError)")
        let answers = results(objects(result.standardOutput))
        try #require(answers.count == 2)
        #expect(attributes(answers[0])["Band_0"] as? Int == 115 && attributes(answers[0])["column"] as? Int == 10 && attributes(answers[0])["row"] as? Int == 10)
        #expect(attributes(answers[0])["Pixel.Type"] as? String == "uint8")
        #expect(attributes(answers[1])["Band_0"] as? Int == 140)
    }

    /// The AIS recording enriched with the world raster (shared data): each observation line carries the three bands of the
    /// cell its lon/lat falls in by the raster's geotransform (the test's own floor), as the raster's pixels hold them.
    @Test(.enabled(if: SharedData.has(SharedData.ais) && SharedData.has("rasters/rasterio__world.rgb.tif"),
                                            "\(SharedData.absentComment)"))
    func sharedAISEnrichedWithWorld() async throws {
        let path = SharedData.path("rasters/rasterio__world.rgb.tif")
        let raster = try GeoTIFFRaster(path: path)
        let transform = try #require(raster.info.geoTransform?.coefficients)
        #expect(transform[2] == 0 && transform[4] == 0 && raster.info.crs == .epsg(4326))
        let result = try await CommandLineTool.run("entitystream", ["replay", SharedData.path(SharedData.ais), "--track-field", "MMSI", "--raster", "world=\(path)",
                                                              "--enrich", "world", "--events", "observation", "--limit", "2000"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(lines.count == 2000)
        for line in lines {
            let geometry = line["geometry"] as? [String: Any] ?? [:]
            let x = geometry["x"] as? Double ?? .nan, y = geometry["y"] as? Double ?? .nan
            let column = Int(((x - transform[0]) / transform[1]).rounded(.down)), row = Int(((y - transform[3]) / transform[5]).rounded(.down))
            let cell = (line["raster"] as? [String: Any])?["world"] as? [String: Any]
            let values = try raster.sample(column: column, row: row)?.values ?? []
            #expect(values.count == 3)
            #expect([cell?["Band_0"] as? Int, cell?["Band_1"] as? Int, cell?["Band_2"] as? Int] == values.map { $0.map { Int($0) } }, "\(x), \(y)")
        }
    }
}
