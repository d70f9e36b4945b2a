import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamTransport

/// Writes `lines` to a temporary CSV and returns its path.
private func temporaryCSV(_ lines: [String]) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("layer-\(UUID().uuidString).csv").path
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// The JSON object a GET of `url` answers.
private func getJSON(_ url: String) async throws -> [String: Any] {
    let response = try await HTTPClient().get(url)
    return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

@Suite("stream-simulator feature layers", .bounded(.io))
struct SimulatorLayerCommandLineTests {
    /// `--layer` with `--columns NAME=…` and `--max-record-count` serves the file as a layer whose description and query say so; the log names the layer's URL.
    @Test func servesALayer() async throws {
        let csv = try temporaryCSV(["ship,px,py,when", "A,1.5,2.5,2000-09-01T00:00:00Z", "B,3.5,4.5,2000-09-02T00:00:00Z",
                                    "C,5.5,6.5,2000-09-03T00:00:00Z", "D,7.5,8.5,2000-09-04T00:00:00Z"])
        defer { try? FileManager.default.removeItem(atPath: csv) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--layer", "Ships=\(csv)", "--columns", "Ships=x=px,y=py,time=when,track=ship", "--max-record-count", "3", "--port", "0"])
        defer { simulator.stop() }
        // The announcement (after "listening on … port N") names the layer's URLs.
        let announcement = try #require(await simulator.waitForErrorLine(containing: "/Ships/MapServer/0 (also"))
        let afterHost = try #require(announcement.split(separator: "layer Ships: http://127.0.0.1:").last)
        let port = try #require(Int(afterHost.prefix { $0.isNumber }))
        let layer = "http://127.0.0.1:\(port)/arcgis/rest/services/Ships/MapServer/0"
        let description = try await getJSON("\(layer)?f=json")
        #expect(description["maxRecordCount"] as? Int == 3)
        let timeInfo = try #require(description["timeInfo"] as? [String: Any])
        #expect(timeInfo["startTimeField"] as? String == "when")
        #expect(timeInfo["trackIdField"] as? String == "ship")
        #expect(timeInfo["timeExtent"] as? [Int] == [967_766_400_000, 968_025_600_000])
        let page = try await getJSON("\(layer)/query?where=1%3D1&outFields=ship&f=json")
        #expect((page["features"] as? [Any])?.count == 3)
        #expect(page["exceededTransferLimit"] as? Bool == true)
        let count = try await getJSON("http://127.0.0.1:\(port)/arcgis/rest/services/Ships/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")
        #expect(count["count"] as? Int == 4)
    }

    /// Malformed layer flags are usage errors (status 2) naming the flag; an unreadable layer file exits 1 naming the file and line.
    @Test(arguments: [
        (["--layer", "Ships"], "--layer expects NAME=FILE"),
        (["--layer", "Bad Name=x.csv"], "must be letters, digits"),
        (["--layer", "A=a.csv", "--columns", "B=x=lon,y=lat"], "--columns B: no service, layer or hot-spot task (--service, --recording, --layer, --hotspots) is named 'B'"),
        (["--layer", "A=a.csv", "--columns", "A=lon=x"], "unknown key 'lon'"),
        (["--layer", "A=a.csv", "--file-format", "A=shapefile"], "--file-format expects csv, esri-lines, esri-array, esri-featureset, geojson, geojsonseq or recording, not 'shapefile'"),
        (["--layer", "A=a.csv", "--in-sr", "A=99999"], "unknown spatial reference wkid 99999"),
        (["--layer", "A=a.csv", "--port=x"], "--port expects"),
        (["--layer", "A=a.csv", "--max-record-count", "0"], "--max-record-count expects a whole number ≥ 1"),
    ])
    func badLayerFlags(arguments: [String], message: String) async throws {
        let result = try await CommandLineTool.run("stream-simulator", arguments + ["--port", "0"])
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    /// A layer file with a bad line stops the simulator with status 1, naming the file and the line.
    @Test func badLayerFileExitsWithOne() async throws {
        let csv = try temporaryCSV(["a,lat,lon", "1,2,3", "2,north,4"])
        defer { try? FileManager.default.removeItem(atPath: csv) }
        let result = try await CommandLineTool.run("stream-simulator", ["--layer", "Bad=\(csv)", "--port", "0"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("layer Bad: \(csv):3: y column 'lat': 'north' is not a number"), "\(result.standardError)")
    }

    /// `--help` documents the layer flags.
    @Test func helpDocumentsLayers() async throws {
        let result = try await CommandLineTool.run("stream-simulator", ["--help"])
        #expect(result.status == 0)
        for flag in ["--layer NAME=FILE", "--columns [NAME=]", "--in-sr [NAME=]", "--file-format [NAME=]", "--max-record-count", "--no-layer-pagination", "MapServer/0/query"] {
            #expect(result.standardOutput.contains(flag), "\(flag)")
        }
    }
}
