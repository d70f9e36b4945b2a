import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// A CSV of dated points the test writes itself: hour `i` of 2000-09-01 (UTC), with a wind speed.
private func datedPoints(_ count: Int) throws -> String {
    var lines = ["name,when,lon,lat,wind"]
    for index in 0..<count {
        let day = 1 + index / 24, hour = index % 24
        lines.append("S\(index % 3),2000-09-\(day < 10 ? "0" : "")\(day)T\(hour < 10 ? "0" : "")\(hour):00:00Z,\(-80 + Double(index) / 10),\(20 + Double(index) / 100),\(index)")
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-points-\(UUID().uuidString).csv").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Parses JSON lines.
private func objects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func winds(_ lines: [[String: Any]]) -> [Int] {
    lines.compactMap { ($0["attributes"] as? [String: Any])?["wind"] as? Int }
}

@Suite("entitystream query", .bounded(.io))
struct QueryCommandLineTests {
    /// A file query returns exactly the rows whose time lies in the extent, both ends included, then a summary.
    @Test func fileQueryIncludesBothEnds() async throws {
        let path = try datedPoints(96)
        let result = try await CommandLineTool.run("entitystream", ["query", path, "--time", "2000-09-02T00:00:00Z,2000-09-02T05:00:00Z", "--order-by", "wind DESC"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(lines.first?["phase"] as? String == "accepted")
        #expect(winds(lines) == [29, 28, 27, 26, 25, 24])
        #expect(lines.last?["phase"] as? String == "summary" && lines.last?["count"] as? Int == 6)
    }

    /// The same query against the simulator serving the same file gives the same features, paged 7 at a time,
    /// with the layer's reachability as status lines; GeoJSON output is one Feature per line and nothing else (the
    /// other lines on stderr), each at the longitude/latitude the test wrote and with its date as ISO-8601 text;
    /// CSV output is a table with x/y and ISO dates.
    @Test func remoteAndLocalAgree() async throws {
        let path = try datedPoints(100)
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--layer", "Storms=\(path)", "--port", "0", "--max-record-count", "7"])
        let port = try #require(await simulator.waitForPort())
        let url = "http://127.0.0.1:\(port)/arcgis/rest/services/Storms/FeatureServer/0"
        let arguments = ["--time", "2000-09-01T10:00:00Z,2000-09-03T10:00:00Z", "--where", "wind >= 20", "--order-by", "wind"]
        let remote = try await CommandLineTool.run("entitystream", ["query", url] + arguments)
        let local = try await CommandLineTool.run("entitystream", ["query", path] + arguments)
        #expect(remote.status == 0 && local.status == 0, "\(remote.standardError) \(local.standardError)")
        let remoteLines = objects(remote.standardOutput)
        #expect(winds(remoteLines) == Array(20...58))
        #expect(winds(objects(local.standardOutput)) == winds(remoteLines))
        #expect(remoteLines.contains { $0["event"] as? String == "status" && $0["status"] as? String == "connected" && ($0["source"] as? String)?.contains("Storms") == true })
        let summary = try #require(remoteLines.last)
        #expect(summary["count"] as? Int == 39 && summary["pages"] as? Int == 6 && summary["paging"] as? String == "resultOffset")
        let geojson = try await CommandLineTool.run("entitystream", ["query", url, "--format", "geojson", "--limit", "3"] + arguments)
        let features = objects(geojson.standardOutput)
        #expect(features.count == 3 && features.allSatisfy { $0["type"] as? String == "Feature" })
        #expect(features.map { $0["id"] as? Int } == [1, 2, 3])
        for feature in features {
            let properties = try #require(feature["properties"] as? [String: Any])
            let index = try #require(properties["wind"] as? Int)
            let day = 1 + index / 24, hour = index % 24
            #expect(properties["when"] as? String == String(format: "2000-09-%02dT%02d:00:00.000Z", day, hour))
            let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            #expect(abs(coordinates[0] - (-80 + Double(index) / 10)) < 1e-9 && abs(coordinates[1] - (20 + Double(index) / 100)) < 1e-9)
        }
        #expect(objects(geojson.standardError).last?["phase"] as? String == "summary")
        let csv = try await CommandLineTool.run("entitystream", ["query", path, "--format", "csv", "--limit", "2"] + arguments)
        let rows = csv.standardOutput.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first == ["x", "y", "OBJECTID", "name", "when", "lon", "lat", "wind"])
        #expect(rows.dropFirst().map { $0[4] } == ["2000-09-01T20:00:00.000Z", "2000-09-01T21:00:00.000Z"])
        #expect(rows.dropFirst().map { $0[0] } == ["-78.0", "-77.9"])
    }

    /// Unreachable layers, unknown fields and bad times are one readable failure: a failed line, one stderr line, status 1 (or 2 for a bad flag).
    @Test func failuresAreReadable() async throws {
        let path = try datedPoints(10)
        let unknown = try await CommandLineTool.run("entitystream", ["query", path, "--where", "gust > 3"])
        #expect(unknown.status == 1)
        #expect(objects(unknown.standardOutput).last?["phase"] as? String == "failed")
        #expect(unknown.standardError.contains("gust") && unknown.standardError.split(separator: "\n").count == 1)
        let unreachable = try await CommandLineTool.run("entitystream", ["query", "http://127.0.0.1:9/arcgis/rest/services/X/MapServer/0"])
        #expect(unreachable.status == 1)
        #expect(objects(unreachable.standardOutput).contains { $0["status"] as? String == "failed" })
        let backwards = try await CommandLineTool.run("entitystream", ["query", path, "--time", "2000-09-02,2000-09-01"])
        #expect(backwards.status == 2 && backwards.standardError.contains("before the start"))
    }

    /// The sample's own query (2000-09-01 → 2000-09-22) on the 2000 season served by the simulator returns exactly
    /// the fixes whose time lies in the extent, counted here from the CSV itself.
    @Test(.enabled(if: SharedData.has("hurdat2/hurdat2_2000_season_flat.csv"), "\(SharedData.absentComment)"))
    func hurricaneSample() async throws {
        let path = SharedData.path("hurdat2/hurdat2_2000_season_flat.csv")
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst()
        let expected = rows.filter { row in
            let time = String(row.split(separator: ",", omittingEmptySubsequences: false)[2])
            return time >= "2000-09-01" && time <= "2000-09-22T00:00:00Z"
        }.count
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--layer", "Hurricanes=\(path)", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        let result = try await CommandLineTool.run("entitystream", ["query", "http://127.0.0.1:\(port)/arcgis/rest/services/Hurricanes/MapServer/0",
                                                              "--time", "2000-09-01,2000-09-22", "--out-fields", "*"])
        #expect(result.status == 0)
        let lines = objects(result.standardOutput)
        #expect(lines.filter { $0["phase"] as? String == "result" }.count == expected)
        #expect(lines.last?["count"] as? Int == expected)
    }

    /// On a running stream, query-observations naming a layer queries that layer through the same runtime.
    @Test func liveCommandQueriesALayer() async throws {
        let path = try datedPoints(48)
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--layer", "Storms=\(path)", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        let feature = #"{"geometry":{"x":1,"y":2},"attributes":{"name":"A","speed":1}}"#
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("es-one-\(UUID().uuidString).json").path
        try feature.write(toFile: recording, atomically: true, encoding: .utf8)
        let process = try RunningProcess(CommandLineTool.path("entitystream"), ["replay", recording, "--track-field", "name", "--hold", "--events", "analysis"])
        process.write(#"{"id":"L","command":"query-observations","layer":"http://127.0.0.1:\#(port)/arcgis/rest/services/Storms/MapServer/0","timeExtent":{"start":"2000-09-01T12:00:00Z","end":null},"where":"wind < 40","orderBy":"wind DESC","limit":2}"# + "\n")
        process.closeInput()
        #expect(process.wait() == 0)
        let lines = objects(process.remainingOutput())
        #expect(lines.map { $0["phase"] as? String ?? "" } == ["accepted", "result", "result", "summary"])
        #expect(winds(lines) == [39, 38])
    }
}
