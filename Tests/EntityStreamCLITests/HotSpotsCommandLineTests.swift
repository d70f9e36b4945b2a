import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// Parses JSON lines.
private func objects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private func phase(_ line: [String: Any]) -> String { line["phase"] as? String ?? "" }

/// The job statuses of the status lines, consecutive repeats folded.
private func statuses(_ lines: [[String: Any]]) -> [String] {
    var result: [String] = []
    for line in lines where phase(line) == "progress" && line["fraction"] == nil {
        if let status = line["jobStatus"] as? String, result.last != status { result.append(status) }
    }
    return result
}

private func attributes(_ line: [String: Any]) -> [String: Any] { line["attributes"] as? [String: Any] ?? [:] }

/// `count` incidents in the Portland files' shape (`x_coordina,y_coordina,occ_date`, State Plane feet, day dates),
/// a third of them clustered; day `i % 90` of 2015. The test's own generator.
private func writeIncidents(_ count: Int) throws -> (path: String, rows: [(x: Int, y: Int, day: Int)]) {
    var state: UInt64 = 42
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    var rows: [(x: Int, y: Int, day: Int)] = []
    for i in 0..<count {
        if i % 3 == 0 { rows.append((7_645_000 + next(1_500), 680_000 + next(1_500), i % 90)) } else { rows.append((7_630_000 + next(30_000), 670_000 + next(30_000), i % 90)) }
    }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd"
    formatter.timeZone = TimeZone(identifier: "UTC")
    let start = Date(timeIntervalSince1970: 1_420_070_400)   // 2015-01-01
    let lines = ["CATEGORY,occ_date,x_coordina,y_coordina"] + rows.map { row in
        "BURGLARY,\(formatter.string(from: start.addingTimeInterval(Double(row.day) * 86_400))),\(row.x),\(row.y)"
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("incidents-\(UUID().uuidString).csv").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return (path, rows)
}

private let localColumns = ["--columns", "x=x_coordina,y=y_coordina,time=occ_date", "--in-sr", "2913"]

/// The lines of a CSV table (CRLF or LF), each split into its cells (no quoted cells here).
private func csvRows(_ text: String) -> [[String]] {
    text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
}

/// A GP job status's place in a job's timeline (submitted, waiting, executing, succeeded).
private func order(_ status: String) -> Int {
    ["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobSucceeded"].firstIndex(of: status) ?? 99
}

@Suite("entitystream hotspots", .bounded(.io))
struct HotSpotsCommandLineTests {
    /// A local file: the job's status lines, one cell polygon per occupied cell whose JOIN_COUNTs add up to the
    /// incidents, then the summary; --format csv prints the same features as a plain table, x/y in WGS84
    /// longitude/latitude (which the Lambert formulas, written in the test, bring back to the cell centre in
    /// Oregon North feet, within the 1.3 m datum shift), or in --out-sr 2913 exactly the centre.
    @Test func localFileAndCSV() async throws {
        let (path, rows) = try writeIncidents(400)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CommandLineTool.run("entitystream", ["hotspots", path] + localColumns + ["--cell-size", "1000"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(phase(lines.first ?? [:]) == "accepted" && phase(lines.last ?? [:]) == "summary")
        #expect(statuses(lines) == ["esriJobSubmitted", "esriJobExecuting", "esriJobSucceeded"])
        #expect(!lines.contains { $0["fraction"] != nil })   // engine progress only on a terminal
        let features = lines.filter { phase($0) == "result" }
        let summary = try #require(lines.last)
        #expect(features.count == summary["n"] as? Int)
        #expect(features.map { attributes($0)["JOIN_COUNT"] as? Int ?? 0 }.reduce(0, +) == rows.count)
        #expect(features.allSatisfy { (($0["geometry"] as? [String: Any])?["rings"] as? [[[Double]]])?.first?.count == 5 })
        #expect((summary["aggregation"] as? [String: Any])?["cellSize"] as? Double == 1000)
        #expect(summary["wkid"] as? Int == 2913 && summary["matched"] as? Int == rows.count)

        let csv = try await CommandLineTool.run("entitystream", ["hotspots", path, "--format", "csv", "--cell-size", "1000"] + localColumns)
        #expect(csv.status == 0, "\(csv.standardError)")
        let table = csvRows(csv.standardOutput)
        #expect(table.first == ["x", "y", "OBJECTID", "SOURCE_ID", "JOIN_COUNT", "GiZScore", "GiPValue", "NNeighbors", "Gi_Bin"])
        #expect(table.count == features.count + 1)
        #expect(table.dropFirst().map { Int($0[4]) ?? 0 }.reduce(0, +) == rows.count)
        #expect(table.dropFirst().map { $0[8] } == features.map { String(attributes($0)["Gi_Bin"] as? Int ?? 99) })
        #expect(objects(csv.standardError).contains { phase($0) == "summary" })
        let centres = features.map { feature -> (x: Double, y: Double) in
            let ring = ((feature["geometry"] as? [String: Any])?["rings"] as? [[[Double]]])?.first ?? []
            let corners = ring.dropLast()
            return (corners.map { $0[0] }.reduce(0, +) / Double(corners.count), corners.map { $0[1] }.reduce(0, +) / Double(corners.count))
        }
        for (row, centre) in zip(table.dropFirst(), centres) {
            let longitude = try #require(Double(row[0])), latitude = try #require(Double(row[1]))
            #expect(longitude > -124 && longitude < -121 && latitude > 45 && latitude < 46)
            let feet = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            #expect(abs(feet.x - centre.x) < 6 && abs(feet.y - centre.y) < 6)
        }
        let native = try await CommandLineTool.run("entitystream", ["hotspots", path, "--format", "csv", "--cell-size", "1000", "--out-sr", "2913"] + localColumns)
        #expect(native.status == 0, "\(native.standardError)")
        for (row, centre) in zip(csvRows(native.standardOutput).dropFirst(), centres) {
            #expect(abs((Double(row[0]) ?? 0) - centre.x) < 1e-6 && abs((Double(row[1]) ?? 0) - centre.y) < 1e-6)
        }
    }

    /// --collect counts identical locations (ICOUNT points); --value-field analyses weighted points; GeoJSON output works.
    @Test func collectAndValueField() async throws {
        var lines = ["x,y,w"]
        // 40 locations: the first 10 with three incidents, the others with two.
        for i in 0..<90 { lines.append("\(1000 + (i % 40) * 10),\(2000 + (i % 40) / 8 * 10),\(i % 9)") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("points-\(UUID().uuidString).csv").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let collected = try await CommandLineTool.run("entitystream", ["hotspots", path, "--in-sr", "2913", "--collect", "--distance-band", "25"])
        #expect(collected.status == 0, "\(collected.standardError)")
        let points = objects(collected.standardOutput).filter { phase($0) == "result" }
        #expect(points.count == 40 && points.allSatisfy { ($0["geometry"] as? [String: Any])?["x"] != nil })
        #expect(points.map { attributes($0)["ICOUNT"] as? Int ?? 0 } == Array(repeating: 3, count: 10) + Array(repeating: 2, count: 30))
        let weighted = try await CommandLineTool.run("entitystream", ["hotspots", path, "--in-sr", "2913", "--value-field", "w", "--distance-band", "25",
                                                                "--format", "geojson"])
        #expect(weighted.status == 0, "\(weighted.standardError)")
        let features = objects(weighted.standardOutput)
        #expect(features.count == 90 && features.allSatisfy { $0["type"] as? String == "Feature" })
        #expect(features.allSatisfy { ($0["properties"] as? [String: Any])?["w"] != nil })
        #expect(objects(weighted.standardError).contains { phase($0) == "summary" })
    }

    /// The same incidents through the simulator's GP task (--time, made the sample's query) and locally with that query
    /// as --where give the same features, both written in Web Mercator (the task's default env:outSR 102100, and
    /// --out-sr 102100 locally); the remote run shows every status in order and the job's messages.
    @Test func remoteAndLocalAgree() async throws {
        let (path, rows) = try writeIncidents(450)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--hotspots", "Calls=\(path)", "--columns", "Calls=x=x_coordina,y=y_coordina,time=occ_date", "--in-sr", "Calls=2913",
            "--job-delay", "120", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        let task = "http://127.0.0.1:\(port)/arcgis/rest/services/Calls/GPServer/911 Calls Hotspot"
        let remote = try await CommandLineTool.run("entitystream", ["hotspots", task, "--time", "2015-01-10,2015-03-01", "--poll-interval", "20"])
        #expect(remote.status == 0, "\(remote.standardError)")
        let remoteLines = objects(remote.standardOutput)
        // The statuses polled, in the job's order from submitted to succeeded (a poll delayed on a loaded
        // machine may miss a short-lived one in between).
        let seen = statuses(remoteLines)
        #expect(seen.first == "esriJobSubmitted" && seen.last == "esriJobSucceeded", "\(seen)")
        #expect(seen.filter { !["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobSucceeded"].contains($0) }.isEmpty
                && seen == seen.sorted { order($0) < order($1) }, "\(seen)")
        // Days 10…58 of 2015 lie strictly between 2015-01-10 00:00 and 2015-03-01 00:00 (day 59).
        let selected = rows.filter { $0.day > 9 && $0.day < 59 }.count
        let messages = remoteLines.compactMap { $0["messages"] as? [[String: Any]] }.flatMap { $0 }.compactMap { $0["description"] as? String }
        #expect(messages.contains("Query selected \(selected) of 450 incidents."))
        #expect(remoteLines.contains { $0["event"] as? String == "status" && $0["status"] as? String == "connected" })

        let sampleQuery = #"("DATE" > date '2015-01-10 00:00:00' AND "DATE" < date '2015-03-01 00:00:00')"#
        let local = try await CommandLineTool.run("entitystream", ["hotspots", path, "--where", sampleQuery, "--out-sr", "102100"] + localColumns)
        #expect(local.status == 0, "\(local.standardError)")
        let localLines = objects(local.standardOutput)
        #expect(localLines.last?["matched"] as? Int == selected)
        let remoteFeatures = remoteLines.filter { phase($0) == "result" }
        let localFeatures = localLines.filter { phase($0) == "result" }
        #expect(remoteFeatures.count == localFeatures.count && !localFeatures.isEmpty)
        for (a, b) in zip(remoteFeatures, localFeatures) {
            #expect(NSDictionary(dictionary: attributes(a)).isEqual(to: attributes(b)))
            #expect(NSDictionary(dictionary: a["geometry"] as? [String: Any] ?? [:]).isEqual(to: b["geometry"] as? [String: Any] ?? [:]))
        }
    }

    /// Ctrl-C while the remote job executes cancels it on the server: cancelling, cancelled, the cancelled line, exit 0.
    @Test func interruptCancelsTheRemoteJob() async throws {
        let (path, _) = try writeIncidents(300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--hotspots", "Calls=\(path)", "--columns", "Calls=x=x_coordina,y=y_coordina,time=occ_date", "--in-sr", "Calls=2913",
            "--job-delay", "100", "--job-execution", "600000", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        let client = try RunningProcess(CommandLineTool.path("entitystream"), [
            "hotspots", "http://127.0.0.1:\(port)/arcgis/rest/services/Calls/GPServer/911%20Calls%20Hotspot", "--where", "1=1", "--poll-interval", "20"])
        var seen: [String] = []
        while !seen.contains(where: { $0.contains("esriJobExecuting") }) {
            let next = client.readLines(1)
            guard let line = next.first else { break }
            seen.append(line)
        }
        #expect(seen.contains { $0.contains("esriJobExecuting") })
        client.signal(SIGINT)
        let rest = client.remainingOutput()
        #expect(client.wait() == 0)
        let lines = objects((seen + [rest]).joined(separator: "\n"))
        #expect(Array(statuses(lines).suffix(2)) == ["esriJobCancelling", "esriJobCancelled"])
        #expect(phase(lines.last ?? [:]) == "cancelled")
    }

    /// On a replayed stream held open, the live command answers from the retained observations (cell polygons, bins),
    /// and its remote form runs the simulator's task.
    @Test func liveCommandViaReplay() async throws {
        let (path, _) = try writeIncidents(200)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--hotspots", "Calls=\(path)", "--columns", "Calls=x=x_coordina,y=y_coordina,time=occ_date", "--in-sr", "Calls=2913", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        var features: [String] = []
        for i in 0..<150 {
            let x = 7_600_000 + (i % 15) * 100 + 20, y = 680_000 + (i / 15) * 100 + 20
            let speed = i % 5 == 0 ? 30 : 0
            features.append(#"{"geometry":{"x":\#(x),"y":\#(y),"spatialReference":{"wkid":2913}},"attributes":{"name":"P\#(i % 12)","speed":\#(speed)}}"#)
        }
        for i in 0..<60 {   // a cluster of stops in the lower-left cells
            features.append(#"{"geometry":{"x":\#(7_600_000 + (i % 3) * 100 + 40),"y":\#(680_000 + (i % 2) * 100 + 40),"spatialReference":{"wkid":2913}},"attributes":{"name":"P\#(i % 12)","speed":0}}"#)
        }
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("plows-\(UUID().uuidString).json").path
        try features.joined(separator: "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let process = try RunningProcess(CommandLineTool.path("entitystream"), ["replay", recording, "--track-field", "name", "--hold", "--events", "analysis,response"])
        // Commands are read while the replay runs: ask for the status until the replay has ended (each answer awaited, no sleep).
        var ended = false
        for attempt in 0..<10_000 where !ended {
            process.write(#"{"id":"s\#(attempt)","command":"status"}"# + "\n")
            guard let line = process.readLines(1).first else { break }
            ended = line.contains(#""status":"ended""#) && line.contains(#""observations":210"#)
        }
        try #require(ended, "the replay never ended")
        process.write(#"{"id":4,"command":"hotspots","where":"speed = 0","cellSize":100,"distanceBand":250,"fdr":false}"# + "\n")
        process.write(#"{"id":"R","command":"hotspots","task":"http://127.0.0.1:\#(port)/arcgis/rest/services/Calls/GPServer/911 Calls Hotspot","timeExtent":{"start":"2015-01-10T00:00:00Z","end":"2015-03-01T00:00:00Z"}}"# + "\n")
        process.closeInput()
        // Read everything first: the output is larger than a pipe holds.
        let output = process.remainingOutput()
        #expect(process.wait() == 0)
        let lines = objects(output)
        let local = lines.filter { $0["id"] as? Int == 4 }
        #expect(phase(local.first ?? [:]) == "accepted" && phase(local.last ?? [:]) == "summary", "\(local.last ?? [:])")
        let cells = local.filter { phase($0) == "result" }
        let stops = 150 - 30 + 60
        #expect(cells.map { attributes($0)["JOIN_COUNT"] as? Int ?? 0 }.reduce(0, +) == stops)
        #expect(cells.allSatisfy { ($0["geometry"] as? [String: Any])?["rings"] != nil })
        let bins = (local.last?["bins"] as? [String: Int]) ?? [:]
        #expect(bins.values.reduce(0, +) == cells.count && (bins["3"] ?? 0) > 0)
        let remote = lines.filter { $0["id"] as? String == "R" }
        #expect(phase(remote.last ?? [:]) == "summary", "\(remote.last ?? [:])")
        #expect(statuses(remote).last == "esriJobSucceeded")
        #expect(remote.filter { phase($0) == "result" }.count == remote.last?["features"] as? Int)
    }

    /// Usage mistakes are one stderr line and exit status 2.
    @Test(arguments: [
        (["hotspots"], "missing the file"),
        (["hotspots", "f.csv", "--value-field", "w", "--collect"], "--value-field"),
        (["hotspots", "f.csv", "--collect", "--cell-size", "5"], "--cell-size"),
        (["hotspots", "f.csv", "--columns", "x=a"], "x without y"),
        (["hotspots", "f.csv", "--poll-interval", "20"], "--poll-interval"),
        (["hotspots", "http://h/arcgis/rest/services/S/GPServer/T", "--time", "2015-01-01,"], "both ends"),
        (["hotspots", "http://h/arcgis/rest/services/S/GPServer/T", "--cell-size", "5"], "--cell-size"),
        (["hotspots", "http://h/arcgis/rest/services/S/GPServer/T", "--time", "2015-02-01,2015-01-01"], "before the start"),
        (["hotspots", "http://h/arcgis/rest/services/S/GPServer/T", "--columns", "x=a,y=b"], "--columns"),
        (["hotspots", "f.csv", "--in-sr", "99999"], "unknown spatial reference wkid 99999"),
        (["hotspots", "f.csv", "--process-sr", "EPSG:0"], "--process-sr"),
        (["hotspots", "f.csv", "--format", "geojson", "--out-sr", "2913"], "RFC 7946"),
        (["hotspots", "f.csv", "--format", "xml"], "esri, geojson or csv"),
        (["hotspots", "f.csv", "--cell-size", "0"], "--cell-size"),
        (["hotspots", "f.csv", "--where", "a = = 1"], "--where"),
    ])
    func usageErrors(arguments: [String], mention: String) async throws {
        let result = try await CommandLineTool.run("entitystream", arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(mention), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    /// The simulator refuses a column mapping for a service it does not serve, and a negative job delay.
    @Test func simulatorUsageErrors() async throws {
        let unknown = try await CommandLineTool.run("stream-simulator", ["--hotspots", "A=x.csv", "--columns", "B=x=a,y=b"])
        #expect(unknown.status == 2 && unknown.standardError.contains("'B'"))
        let negative = try await CommandLineTool.run("stream-simulator", ["--hotspots", "A=x.csv", "--job-delay", "-5"])
        #expect(negative.status == 2 && negative.standardError.contains("--job-delay"))
        let tooLong = try await CommandLineTool.run("stream-simulator", ["--hotspots", "A=x.csv", "--job-execution", "3600001"])
        #expect(tooLong.status == 2 && tooLong.standardError.contains("--job-execution"))
        let help = try await CommandLineTool.run("stream-simulator", ["--help"])
        #expect(help.standardOutput.contains("--hotspots NAME=FILE") && help.standardOutput.contains("--job-delay"))
    }

    /// The Portland burglaries (State Plane feet): locally over 2015, and through the simulator with the sample's dates
    /// (--time, strict at both ends for a task), the incidents counted here from the CSV.
    @Test(.enabled(if: SharedData.has("incidents/portland_nij_cfs_burglary_2012-03_2016-08.csv"), "\(SharedData.absentComment)"))
    func portlandBurglaries() async throws {
        let path = SharedData.path("incidents/portland_nij_cfs_burglary_2012-03_2016-08.csv")
        let rows = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let dates = rows.map { $0[4] }
        let inYear = dates.filter { $0 >= "2015-01-01" && $0 <= "2015-12-31" }.count
        let local = try await CommandLineTool.run("entitystream", ["hotspots", path] + localColumns + ["--time", "2015-01-01,2015-12-31", "--cell-size", "1500"])
        #expect(local.status == 0, "\(local.standardError)")
        let lines = objects(local.standardOutput)
        #expect(lines.last?["matched"] as? Int == inYear)
        #expect(lines.filter { phase($0) == "result" }.map { attributes($0)["JOIN_COUNT"] as? Int ?? 0 }.reduce(0, +) == inYear)

        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--hotspots", "Burglary=\(path)", "--columns", "Burglary=x=x_coordina,y=y_coordina,time=occ_date", "--in-sr", "Burglary=2913", "--port", "0"])
        let port = try #require(await simulator.waitForPort())
        let remote = try await CommandLineTool.run("entitystream", ["hotspots", "http://127.0.0.1:\(port)/arcgis/rest/services/Burglary/GPServer/911 Calls Hotspot",
                                                              "--time", "2015-01-01,2015-07-01", "--poll-interval", "20"])
        #expect(remote.status == 0, "\(remote.standardError)")
        // Strict at both ends, as the sample: 2015-01-01 itself and 2015-07-01 are out.
        let between = dates.filter { $0 > "2015-01-01" && $0 < "2015-07-01" }.count
        let remoteLines = objects(remote.standardOutput)
        let messages = remoteLines.compactMap { $0["messages"] as? [[String: Any]] }.flatMap { $0 }.compactMap { $0["description"] as? String }
        #expect(messages.contains("Query selected \(between) of \(rows.count) incidents."))
        #expect(phase(remoteLines.last ?? [:]) == "summary")
    }
}
