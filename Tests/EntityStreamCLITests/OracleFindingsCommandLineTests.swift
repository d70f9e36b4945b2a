import EntityStreamCore
import EntityStreamTestSupport
@testable import EntityStreamCLI
import Foundation
import EntityStreamRaster
import Testing
import EntityStreamModel

/// Writes `bytes` to a fresh temporary file named `…name` and returns its path.
func oracleFile(_ bytes: [UInt8], name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-oracle-\(UUID().uuidString)-\(name)").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

func oracleFile(_ text: String, name: String) throws -> String { try oracleFile(Array(text.utf8), name: name) }

/// The CSV records of `text` split by hand (no quoting in these tests' outputs except where noted).
private func csvRows(_ text: String) -> [[String]] {
    text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
}

@Suite("Answers found wrong by independent oracles, checked end to end", .bounded(.io))
struct OracleFindingsCommandLineTests {
    /// The issue's reproduction: "é" precomposed and decomposed are two groups
    /// (as DuckDB, SQLite and ArcGIS answer), grouped here by the test's own
    /// comparison of Unicode scalars.
    @Test func statisticsGroupsByScalars() async throws {
        let rows: [(key: [UInt8], value: Int)] = [([0xC3, 0xA9], 1), ([0x65, 0xCC, 0x81], 2), ([0xC3, 0xA9], 4)]
        var file: [UInt8] = Array("k,v,lon,lat\n".utf8)
        for row in rows { file += row.key + Array(",\(row.value),0,0\n".utf8) }
        let path = try oracleFile(file, name: "nfd.csv")
        let result = try await CommandLineTool.run("entitystream", ["statistics", path, "--stat", "sum:v", "--stat", "count:*",
                                                              "--group-by", "k", "--format", "csv"])
        #expect(result.status == 0, "\(result.standardError)")
        // The oracle: group by the key's bytes.
        var expected: [[UInt8]: (sum: Int, count: Int)] = [:]
        for row in rows { expected[row.key, default: (0, 0)].sum += row.value; expected[row.key, default: (0, 0)].count += 1 }
        let lines = csvRows(result.standardOutput).dropFirst()
        #expect(lines.count == expected.count, "\(result.standardOutput)")
        for line in lines {
            guard line.count == 3 else { Issue.record("bad line \(line)"); continue }
            let want = try #require(expected[Array(line[0].utf8)], "a group whose key is not in the file: \(Array(line[0].utf8))")
            #expect(Double(line[1]) == Double(want.sum) && Int(line[2]) == want.count, "\(line)")
        }
    }

    /// Lines of stdout parsed as JSON objects.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// A point off the raster because it is given in the wrong coordinates gets a hint, not a bare `cell:null`:
    /// longitude/latitude on a projected (UTM) raster without --sr, and latitude/longitude swapped on a WGS84 raster.
    @Test func identifyHintsWrongCoordinates() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("es-oracle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let utm = directory + "/utm.tif", wgs = directory + "/wgs.tif"
        try GeoTIFFWriter.write(RasterImage(width: 4, height: 4, pixelType: .uint8) { _, c, r in Double(r * 4 + c) }, to: utm,
                                options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(originX: 420_000, originY: 4_500_000, cellWidth: 100, cellHeight: 100)!),
                                                             crs: .projected(epsg: 32612)))
        try GeoTIFFWriter.write(RasterImage(width: 8, height: 8, pixelType: .uint8) { _, c, r in Double(r * 8 + c) }, to: wgs,
                                options: GeoTIFFWriteOptions(georeferencing: .geoTransform(GeoTransform(originX: -105, originY: 48, cellWidth: 1, cellHeight: 1)!),
                                                             crs: .geographic(epsg: 4326)))
        let lonLat = try await CommandLineTool.run("entitystream", ["identify", utm, "--at", "-111.9,40.6"])
        let first = try #require(Self.objects(lonLat.standardOutput).first { $0["phase"] as? String == "result" })
        #expect(first["cell"] is NSNull)
        #expect((first["hint"] as? String)?.contains("--in-sr 4326") == true, "\(lonLat.standardOutput)")
        // (43.5, −100.5) is off; (−100.5, 43.5) is on: swapped.
        let swapped = try await CommandLineTool.run("entitystream", ["identify", wgs, "--at", "43.5,-100.5"])
        let second = try #require(Self.objects(swapped.standardOutput).first { $0["phase"] as? String == "result" })
        #expect((second["hint"] as? String)?.contains("swapped") == true, "\(swapped.standardOutput)")
        // Really off the raster: no hint.
        let off = try await CommandLineTool.run("entitystream", ["identify", wgs, "--at", "10,10"])
        let third = try #require(Self.objects(off.standardOutput).first { $0["phase"] as? String == "result" })
        #expect(third["hint"] == nil)
    }

    /// A binary file or a TIFF given to query or statistics is named as such, not as a CSV with the wrong field count.
    @Test func binaryFilesAreNotCSV() async throws {
        let tiff = try oracleFile([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0] + [UInt8](repeating: 7, count: 200), name: "r.tif")
        var noise: [UInt8] = Array("a,b\n".utf8)
        var random = SplitMix64(seed: 5)
        for _ in 0..<300 { noise.append(UInt8(random.next(below: 256))) }
        noise[20] = 0
        let binary = try oracleFile(noise, name: "data.bin")
        for (path, says) in [(tiff, "TIFF image"), (binary, "binary data")] {
            for arguments in [["query", path], ["statistics", path, "--stat", "count:*"]] {
                let result = try await CommandLineTool.run("entitystream", arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.standardError.contains("not a CSV or JSON file") && result.standardError.contains(says), "\(result.standardError)")
                #expect(!result.standardError.contains("fields as in the header"))
            }
        }
    }

    /// Projected coordinates read as WGS84 say how many records were excluded and suggest the spatial reference;
    /// swapped latitude/longitude say so.
    @Test func hotSpotsOutOfRangeCoordinates() async throws {
        var projected = "x,y\n", swapped = "lat,lon\n"
        var random = SplitMix64(seed: 11)
        for _ in 0..<80 {
            projected += "\(7_640_000 + random.next(below: 5000)),\(680_000 + random.next(below: 5000))\n"
            swapped += "\(45.5 + Double(random.next(below: 100)) / 1000),\(-122.6 - Double(random.next(below: 100)) / 1000)\n"
        }
        let result = try await CommandLineTool.run("entitystream", ["hotspots", try oracleFile(projected, name: "p.csv")])
        #expect(result.status == 1)
        #expect(result.standardError.contains("80 records were excluded because their coordinates are outside WGS84's range") && result.standardError.contains("--in-sr"),
                "\(result.standardError)")
        let mixed = try await CommandLineTool.run("entitystream", ["hotspots", try oracleFile(swapped, name: "s.csv"), "--columns", "x=lat,y=lon"])
        #expect(mixed.status == 1)
        #expect(mixed.standardError.contains("80 records were excluded") && mixed.standardError.contains("swapped"), "\(mixed.standardError)")
    }

    /// The surprising forms of --time are refused with both readings explained.
    @Test func ambiguousTimeForms() async throws {
        let path = try oracleFile("t,lon,lat\n2000-09-01T10:00:00Z,0,0\n,1,1\n", name: "t.csv")
        for (time, says) in [("2000-09-01", "has no comma"), ("20240310,20240311", "is ambiguous"), (",", "no time filter")] {
            let result = try await CommandLineTool.run("entitystream", ["query", path, "--time", time])
            #expect(result.status == 2, "\(time)")
            #expect(result.standardError.contains(says), "\(time): \(result.standardError)")
        }
        // The explicit forms work; the summary's timeExtent is an object, as on stdin.
        let instant = try await CommandLineTool.run("entitystream", ["query", path, "--time", "2000-09-01T10:00:00Z,2000-09-01T10:00:00Z"])
        let lines = Self.objects(instant.standardOutput)
        #expect(lines.filter { $0["phase"] as? String == "result" }.count == 1)
        let summary = try #require(lines.last)
        let extent = try #require(summary["timeExtent"] as? [String: Any], "\(instant.standardOutput)")
        #expect(extent["start"] as? String == "2000-09-01T10:00:00.000Z" && extent["end"] as? String == "2000-09-01T10:00:00.000Z")
        let statistics = try await CommandLineTool.run("entitystream", ["statistics", path, "--stat", "count:*", "--time", "2000-09-01,"])
        #expect(Self.objects(statistics.standardOutput).last?["timeExtent"] is [String: Any], "\(statistics.standardOutput)")
    }

    /// `replay --csv` with an empty time value: the bad row is an `error` event in its place and the rest is replayed;
    /// with --hold, the commands are answered after the whole file is in, and the file's time column is the default time field.
    @Test func replayCSVBadRowsAndHold() async throws {
        let csv = "id,t,lon,lat\nA,2024-03-10T10:00:00Z,1,1\nB,,2,2\nC,2024-03-10T11:00:00Z,3,3\nD,2024-03-10T12:00:00Z,4,4\n"
        let path = try oracleFile(csv, name: "track.csv")
        let replay = try await CommandLineTool.run("entitystream", ["replay", path, "--columns", "track=id,time=t,x=lon,y=lat", "--events", "observation,error"], input: "")
        #expect(replay.status == 0, "\(replay.standardError)")
        let events = Self.objects(replay.standardOutput).map { ($0["event"] as? String ?? "", $0["track"] as? String ?? "") }
        #expect(events.map(\.0) == ["observation", "error", "observation", "observation"], "\(replay.standardOutput)")
        #expect(events.map(\.1) == ["A", "", "C", "D"])
        let error = try #require(Self.objects(replay.standardOutput).first { $0["event"] as? String == "error" })
        #expect((error["message"] as? String)?.contains("line 3") == true && (error["message"] as? String)?.contains("time column 't' is empty") == true)
        // --hold: the command is read at once but answered from the whole file, on the file's time.
        let command = #"{"id":1,"command":"query-observations","timeExtent":{"start":"2024-03-10T10:30:00Z","end":"2024-03-10T12:00:00Z"},"returnCountOnly":true}"#
        let held = try await CommandLineTool.run("entitystream", ["replay", path, "--columns", "track=id,time=t,x=lon,y=lat", "--hold",
                                                          "--events", "analysis"], input: command + "\n")
        let summary = try #require(Self.objects(held.standardOutput).first { $0["phase"] as? String == "summary" }, "\(held.standardOutput)")
        #expect(summary["timeField"] as? String == "t")
        #expect(summary["count"] as? Int == 2, "C and D fall in the extent: \(summary)")
    }

    /// An untrusted certificate (the simulator's self-signed one) fails at once, on the description request, with
    /// the --insecure hint: one attempt, not thirteen over 100 s; with --insecure the same service connects.
    @Test func untrustedCertificateFailsAtOnceWithHint() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "2", "--port", "0",
                                                                                     "--tls-cert", certificate.certificatePath, "--tls-key", certificate.privateKeyPath])
        defer { simulator.stop() }
        let port = try #require(await simulator.waitForPort())
        let url = "https://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer"
        let refused = try await CommandLineTool.run("entitystream", ["connect", url, "--events", "status"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("not trusted") && refused.standardError.contains("--insecure"), "\(refused.standardError)")
        let statuses = Self.objects(refused.standardOutput).compactMap { $0["status"] as? String }
        #expect(statuses == ["connecting", "failed"], "one attempt, then failed: \(refused.standardOutput)")
        let accepted = try await CommandLineTool.run("entitystream", ["connect", url, "--insecure", "--events", "observation", "--limit", "1"])
        #expect(accepted.status == 0, "\(accepted.standardError)")
    }

    /// The progress line says the attempt and why it failed while retrying (a DNS failure), and just the status when connected.
    @Test func progressLineShowsAttemptAndReason() {
        func live(_ status: ConnectionStatus, attempt: Int, lastError: String? = nil) -> LiveSourceStatus {
            LiveSourceStatus(connection: status, attempt: attempt, service: "https://example.com/arcgis/rest/services/S/StreamServer",
                             lastError: lastError, undecodableMessages: 0, filter: StreamFilter())
        }
        let retrying = live(.connecting, attempt: 3,
                            lastError: "the service description could not be fetched: cannot resolve host 'nowhere.invalid': Name or service not known")
        #expect(ProgressReporter.statusText(retrying) == "connecting (attempt 3: the service description could not be fetched: cannot resolve host 'nowhere.invalid': Name or service not known)")
        #expect(ProgressReporter.statusText(live(.connected, attempt: 0)) == "connected")
        #expect(ProgressReporter.statusText(live(.connecting, attempt: 0)) == "connecting")
        #expect(ProgressReporter.statusText(FixedSourceStatus(.replaying)) == "replaying", "a source that does not connect: its status alone")
    }
}

