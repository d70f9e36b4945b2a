import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// Writes `lines` to a temporary file and returns its path.
private func temporaryFile(_ lines: [String], extension suffix: String = "json") throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-\(UUID().uuidString).\(suffix)").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private func feature(_ name: String, speed: Double, x: Double) -> String {
    #"{"geometry":{"x":\#(x),"y":40.6,"spatialReference":{"wkid":4326}},"attributes":{"name":"\#(name)","speed":\#(speed)}}"#
}

/// Replaces the times (which depend on when the test runs) with `T`.
private func withoutTimes(_ line: Substring) -> String {
    String(line).replacing(/"time":"[^"]*","epoch":\d+/, with: #""time":T"#)
        .replacing(/"received":"[^"]*","receivedEpoch":\d+/, with: #""received":T"#)
}

/// Runs `name` with its stdout a pipe whose reader has already gone (as in
/// `| true` once `true` has exited): every write to stdout fails with EPIPE.
private func runWithClosedOutput(_ name: String, _ arguments: [String]) throws -> (status: Int32, standardError: String) {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    close(ends[0])
    let child = try ChildProcess(CommandLineTool.path(name), arguments, input: .null, output: .descriptor(ends[1]))
    close(ends[1])
    let (_, standardError) = child.readToEnd()
    return (child.wait(), String(decoding: standardError, as: UTF8.self))
}

@Suite("entitystream command line", .bounded(.io))
struct CommandLineTests {
    /// `replay` of a small recording prints exactly the expected lines, in order.
    @Test func replayPrintsExactlyTheExpectedLines() async throws {
        let features = [feature("A", speed: 1, x: -112), feature("B", speed: 0, x: -111.9),
                        feature("A", speed: 2.5, x: -111.99), "not json", feature("A", speed: 3, x: -111.98)]
        let path = try temporaryFile(features)
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "name", "--max-observations-per-track", "2",
                                                              "--events", "observation,entity-received,observation-purged,error"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n").map(withoutTimes)
        /// Geometry and attributes are passed through exactly as the file has them.
        func body(_ index: Int) -> String {
            let text = features[index]
            let attributes = text.range(of: #","attributes":"#)!
            return #","geometry":"# + text[text.index(text.startIndex, offsetBy: 12)..<attributes.lowerBound] + text[attributes.lowerBound...]
        }
        #expect(lines == [
            #"{"event":"entity-received","track":"A","entity":1,"observation":1,"time":T"# + body(0),
            #"{"event":"observation","track":"A","entity":1,"observation":1,"time":T"# + body(0),
            #"{"event":"entity-received","track":"B","entity":2,"observation":2,"time":T"# + body(1),
            #"{"event":"observation","track":"B","entity":2,"observation":2,"time":T"# + body(1),
            #"{"event":"observation","track":"A","entity":1,"observation":3,"time":T"# + body(2),
            #"{"event":"error","source":"recording","message":"\#(path) line 4: invalid JSON at byte 0: not a stream message: expected a feature object or an array of them","count":1,"time":T}"#,
            #"{"event":"observation","track":"A","entity":1,"observation":4,"time":T"# + body(4),
            #"{"event":"observation-purged","track":"A","entity":1,"observation":1,"reason":"maximumObservationsPerTrack","received":T,"time":T}"#,
        ])
    }

    /// Every malformed flag value is a usage error: exit status 2 and one clear line on stderr.
    @Test(arguments: [
        (["connect"], "missing the service URL"),
        (["connect", "http://h/StreamServer", "--max-observations", "-1"], "--max-observations expects a whole number ≥ 0, not '-1'"),
        (["connect", "ws://h/arcgis/ws/services/x/StreamServer"], "connect expects the service's REST URL (https://…/StreamServer), not 'ws://h/arcgis/ws/services/x/StreamServer'"),
        (["connect", "ftp://h/x"], "unsupported scheme"),
        (["connect", "http://h/x", "--token"], "--token needs a value"),
        (["replay", "f.json", "--limit", "0"], "--limit expects a whole number ≥ 1, not '0'"),
        (["replay", "f.json", "--format", "kml"], "--format expects esri, geojson or csv, not 'kml'"),
        (["replay", "f.json", "--events", "observations"], "unknown event kind 'observations'"),
        (["replay", "f.json", "--geometry", "1,2,3"], "--geometry: geometry '1,2,3': expected xmin,ymin,xmax,ymax[,wkid]"),
        (["replay", "f.json", "--geometry", "1,2,3,4,99999"], "unknown spatial reference wkid 99999"),
        (["replay", "f.json", "--out-sr", "99999"], "--out-sr: unknown spatial reference wkid 99999: PROJ knows neither EPSG:99999 nor ESRI:99999"),
        (["replay", "f.json", "--out-sr", "3857", "--format", "geojson"], "RFC 7946"),
        (["replay", "f.json", "--columns", "track=a,time=b"], "needs the columns track, time, x and y"),
        (["replay", "f.json", "--format=kml"], "--format expects"),
        (["help", "bogus"], "help: unknown command 'bogus'"),
        (["replay", "f.json", "--geometry", "5,2,3,4"], "no area"),
        (["replay", "f.json", "--where", "speed >"], "--where: where clause error at position 8"),
        (["replay", "f.json", "--interval", "5", "--speed", "2"], "either --interval or --speed"),
        (["replay", "f.json", "--speed", "0"], "--speed expects a number ≥ 1e-06"),
        (["replay", "f.json", "--speed", "1e-300"], "--speed expects a number ≥ 1e-06"),
        (["replay", "f.json", "--speed", "1e308"], "--speed expects a number ≤ 1000000"),
        (["replay", "f.json", "--out-sr", "0"], "--out-sr: '0' is not a spatial reference: a WKID is a whole number from 1"),
        (["replay", "f.json", "--duration", "0"], "--duration expects a number > 0"),
        (["replay", "f.json", "--duration", "1e300"], "--duration expects a number ≤ 1000000000, not '1e300'"),
        (["replay", "f.json", "--max-duration", "1e300"], "--max-duration expects a number ≤ 1000000000"),
        (["replay", "f.json", "--interval", "9223372036854775807"], "--interval expects a whole number ≤ 1000000000000"),
        (["connect", "http://h/StreamServer", "--reconnect-interval", "1e300"], "--reconnect-interval expects a number ≤ 1000000000"),
        (["replay", "f.json", "--bogus"], "unknown option '--bogus'"),
        (["replay", "f.json", "--limit", "5", "--events", "status"], "--limit needs observation in --events"),
        (["replay"], "missing the FILE"),
        (["record", "http://h/StreamServer"], "missing -o FILE"),
        (["demo", "--vehicles", "0"], "--vehicles expects a whole number ≥ 1"),
        (["demo", "--vehicles", "200000"], "--vehicles expects a whole number ≤ 100000, not '200000'"),
        (["demo", "--rate", "5000"], "--rate expects a number ≤ 1000"),
        (["bogus"], "unknown command 'bogus'"),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await CommandLineTool.run("entitystream", arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("entitystream: ") == true)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    /// `--speed` replays a recording's own timing; asking it of a file without times is a
    /// usage error (status 2), with the way out.
    @Test func speedOnAFileWithoutTimesIsAUsageError() async throws {
        let path = try temporaryFile([feature("A", speed: 1, x: 0)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "name", "--speed", "2"])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "entitystream: replay: --speed needs a recording made by 'entitystream record' or a CSV track (this file is Esri feature JSON lines, without times); use --interval\n")
    }

    /// Runtime failures exit with status 1 and say why.
    @Test func runtimeFailuresExitWithOne() async throws {
        let missing = try await CommandLineTool.run("entitystream", ["replay", "/no/such/file.json"])
        #expect(missing.status == 1)
        #expect(missing.standardError == "entitystream: replay: cannot read '/no/such/file.json': No such file or directory\n")
        let plain = try temporaryFile([feature("A", speed: 1, x: 0)])
        let noTrack = try await CommandLineTool.run("entitystream", ["replay", plain])
        #expect(noTrack.status == 1)
        #expect(noTrack.standardError.contains("--track-field (fields: name, speed)"))
        let refused = try await CommandLineTool.run("entitystream", ["connect", "http://127.0.0.1:1/arcgis/rest/services/X/StreamServer", "--reconnect-attempts", "0"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("connection refused by 127.0.0.1:1"))
        #expect(refused.standardOutput.contains(#""status":"failed""#))
    }

    /// Every command answers --help, and `help COMMAND`, with its own usage on stdout and status 0.
    @Test(arguments: ["demo", "connect", "replay", "consume", "fleet", "record", "query", "statistics", "hotspots", "identify"])
    func helpForEveryCommand(command: String) async throws {
        let usage = command == "demo" ? "Usage: entitystream [demo]" : "Usage: entitystream \(command) "
        for arguments in [[command, "--help"], [command, "-h"], ["help", command]] {
            let result = try await CommandLineTool.run("entitystream", arguments)
            #expect(result.status == 0, "\(arguments)")
            #expect(result.standardOutput.hasPrefix(usage), "\(arguments): \(result.standardOutput.prefix(60))")
            #expect(result.standardError.isEmpty)
        }
        let general = try await CommandLineTool.run("entitystream", ["help"])
        #expect(general.status == 0 && general.standardOutput.contains("entitystream connect URL"))
    }

    /// Both programs print their version for --version, anywhere a flag may stand, and parse --flag=value.
    @Test func versionAndAttachedValues() async throws {
        for (program, arguments) in [("entitystream", ["--version"]), ("entitystream", ["connect", "http://h/StreamServer", "--version"]),
                                     ("entitystream", ["demo", "--version"]), ("stream-simulator", ["--version"]),
                                     ("stream-simulator", ["--fleet", "2", "--version"])] {
            let result = try await CommandLineTool.run(program, arguments)
            #expect(result.status == 0, "\(program) \(arguments): \(result.standardError)")
            #expect(result.standardOutput.hasPrefix("\(program) ") && result.standardOutput.contains("(PROJ "), "\(result.standardOutput)")
            #expect(result.standardError.isEmpty)
        }
        let attached = try await CommandLineTool.run("stream-simulator", ["--fleet=2", "--port=70000"])
        #expect(attached.status == 2 && attached.standardError.contains("--port expects a whole number ≤ 65535, not '70000'"), "\(attached.standardError)")
    }

    /// A closed stdout (`| head`) ends the program quietly with status 0.
    @Test func closedOutputEndsQuietly() async throws {
        let path = try temporaryFile([feature("A", speed: 1, x: 0), feature("B", speed: 1, x: 1)])
        let command = "'\(CommandLineTool.path("entitystream"))' replay '\(path)' --track-field name --loop | head -n 3; echo \"status=${PIPESTATUS[0]}\""
        let result = try await ProcessRunner.run("/bin/bash", ["-c", command])
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.last == "status=0")
        #expect(result.standardError.isEmpty)
    }

    /// An output that cannot be written (a full disk) is a runtime failure naming the error, not a quiet success.
    @Test func unwritableOutputExitsWithOne() async throws {
        let path = try temporaryFile([feature("A", speed: 1, x: 0)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = "'\(CommandLineTool.path("entitystream"))' replay '\(path)' --track-field name > /dev/full"
        let result = try await ProcessRunner.run("/bin/bash", ["-c", command])
        #expect(result.status == 1)
        #expect(result.standardError == "entitystream: cannot write to stdout: No space left on device\n")
    }

    /// Control commands on stdin are answered by response events with their ids, errors included.
    @Test func controlCommandsAreAnswered() throws {
        let path = try temporaryFile([feature("A", speed: 1, x: -112), feature("B", speed: 9, x: -111.9)])
        let commands = [
            #"{"id":1,"command":"status"}"#,
            #"{"id":"q","command":"query-entities","where":"speed > 5"}"#,
            #"{"id":3,"command":"set-filter","filter":{"where":"nope > 1"}}"#,
            #"{"id":4,"command":"set-filter","filter":{"where":"speed > 0"}}"#,
            #"{"id":5,"command":"launch"}"#,
            "garbage",
            #"{"id":6,"command":"purge-all"}"#,
        ]
        let process = try RunningProcess(CommandLineTool.path("entitystream"),
                                         ["replay", path, "--track-field", "name", "--loop", "--interval", "20", "--events", "response,entity-received"])
        // Both entities exist before the commands go in.
        #expect(process.readLines(2).allSatisfy { $0.contains("entity-received") })
        var responses: [String: [String: Any]] = [:]
        for command in commands {
            process.write(command + "\n")
            while let line = process.readLines(1).first {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { break }
                if object["event"] as? String == "response" {
                    responses["\(object["id"] ?? "null")"] = object
                    break
                }
            }
        }
        process.signal(SIGTERM)
        #expect(process.wait() == 0)
        #expect(responses["1"]?["ok"] as? Bool == true)
        #expect((responses["1"]?["result"] as? [String: Any])?["status"] as? String == "replaying")
        let query = responses["q"]?["result"] as? [String: Any]
        #expect(query?["count"] as? Int == 1)
        #expect(((query?["entities"] as? [[String: Any]])?.first?["track"] as? String) == "B")
        #expect(responses["3"]?["ok"] as? Bool == false)
        #expect((responses["3"]?["error"] as? String)?.contains("unknown field 'nope'") == true)
        #expect(responses["4"]?["ok"] as? Bool == true)
        #expect((responses["5"]?["error"] as? String)?.contains("unknown command 'launch'") == true)
        #expect((responses["<null>"]?["error"] as? String)?.contains("not a JSON command") == true)
        #expect((responses["6"]?["result"] as? [String: Any])?["purgedEntities"] as? Int == 2)
    }

    /// SIGINT disconnects, flushes and exits with status 0; the output ends with a whole line.
    @Test func interruptFlushesAndExitsZero() throws {
        let path = try temporaryFile([feature("A", speed: 1, x: 0)])
        let process = try RunningProcess(CommandLineTool.path("entitystream"), ["replay", path, "--track-field", "name", "--loop", "--interval", "5"])
        #expect(process.readLines(5).count == 5)
        process.signal(SIGINT)
        #expect(process.wait() == 0)
        let rest = process.remainingOutput()
        #expect(rest.isEmpty || rest.hasSuffix("\n"))
    }

    /// `record` from the simulator, `stream-simulator --recording` of that file, then
    /// `connect`: the same observations in the same order.
    @Test func recordSimulateConnectRoundTrip() async throws {
        let fleet = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "3", "--rate", "5", "--port", "0", "--seed", "7"])
        defer { fleet.stop() }
        let fleetPort = try #require(await fleet.waitForPort())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recordingPath = directory.appendingPathComponent("RoundTrip.json").path
        let record = try await CommandLineTool.run("entitystream", [
            "record", "http://127.0.0.1:\(fleetPort)/arcgis/rest/services/SandyVehicles/StreamServer", "-o", recordingPath, "--limit", "30"])
        #expect(record.status == 0)
        #expect(record.standardError.contains("recorded 30 messages"))
        let recording = try RecordingFile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: recordingPath))))
        #expect(recording.layout == .recording)
        #expect(recording.entries.count == 30)

        let replay = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--recording", recordingPath, "--port", "0"])
        defer { replay.stop() }
        let replayPort = try #require(await replay.waitForPort())
        let connect = try await CommandLineTool.run("entitystream", [
            "connect", "http://127.0.0.1:\(replayPort)/arcgis/rest/services/RoundTrip/StreamServer", "--limit", "30", "--events", "observation"])
        #expect(connect.status == 0)
        let received = try connect.standardOutput.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(received.count == 30)
        let recorded = try recording.entries.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.message)) as? [String: Any])
        }
        for (sent, got) in zip(recorded, received) {
            #expect(NSDictionary(dictionary: sent["attributes"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: got["attributes"] as? [String: Any] ?? [:]))
            #expect(NSDictionary(dictionary: sent["geometry"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: got["geometry"] as? [String: Any] ?? [:]))
        }
        // The replayed timing is the simulator's schedule (FeedCursor: each message due at
        // its recorded offset, tested exactly with the offsets a test wrote); measured here
        // through three processes it would measure the machine's load, not the schedule.
        #expect(received.allSatisfy { $0["epoch"] is Int64 })
    }

    /// The recording is the job: with stdout closed by its reader (`| true`), `record`
    /// stops printing status lines, records everything asked for and exits 0.
    @Test func recordKeepsRecordingWhenStdoutCloses() async throws {
        let fleet = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "3", "--rate", "20", "--port", "0"])
        defer { fleet.stop() }
        let port = try #require(await fleet.waitForPort())
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("closed-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let record = try runWithClosedOutput("entitystream", [
            "record", "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer", "-o", path, "--limit", "20"])
        #expect(record.status == 0, "\(record.standardError)")
        #expect(record.standardError == "entitystream: recorded 20 messages to \(path)\n")
        let recording = try RecordingFile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(recording.layout == .recording)
        #expect(recording.entries.count == 20)
    }

    /// A recording that records nothing (the service is unreachable) leaves an existing
    /// file byte for byte as it was, and no partial file behind.
    @Test func failedRecordingLeavesExistingFileUntouched() async throws {
        let original = Data("{\"recording\":\"precious\"}\n".utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("existing-\(UUID().uuidString).json").path
        try original.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let record = try await CommandLineTool.run("entitystream", [
            "record", "http://127.0.0.1:1/arcgis/rest/services/X/StreamServer", "-o", path, "--reconnect-attempts", "0"])
        #expect(record.status == 1)
        #expect(record.standardError.contains("nothing recorded; '\(path)' left as it was"))
        #expect(record.standardError.contains("connection refused by 127.0.0.1:1"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }

    /// `connect --out-sr 2913` asks the simulator for Oregon North feet (the fleet's WGS84 positions, which it also
    /// sends as point_x/point_y, projected with the Lambert formulas written in the test: within the 1.3 m datum
    /// shift), archive included; `--format geojson` writes WGS84 whatever the service sends, and `--format csv`
    /// keeps --out-sr's coordinates.
    @Test func connectInAnySpatialReference() async throws {
        let fleet = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "3", "--rate", "5", "--port", "0", "--seed", "5"])
        defer { fleet.stop() }
        let port = try #require(await fleet.waitForPort())
        let url = "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer"
        let feet = try await CommandLineTool.run("entitystream", ["connect", url, "--out-sr", "2913", "--limit", "6", "--events", "observation"])
        #expect(feet.status == 0, "\(feet.standardError)")
        let lines = feet.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 6 && lines.contains { $0["primed"] as? Bool == true })
        for line in lines {
            let geometry = try #require(line["geometry"] as? [String: Any])
            let attributes = try #require(line["attributes"] as? [String: Any])
            let oracle = ProjectionOracles.oregonNorthFeet(longitude: attributes["point_x"] as? Double ?? 0, latitude: attributes["point_y"] as? Double ?? 0)
            #expect((geometry["spatialReference"] as? [String: Any])?["wkid"] as? Int == 2913)
            #expect(abs((geometry["x"] as? Double ?? 0) - oracle.x) < 7 && abs((geometry["y"] as? Double ?? 0) - oracle.y) < 7)
        }
        for arguments in [["--format", "geojson"], ["--format", "geojson", "--out-sr", "3857", "--events", "observation"]] {
            let geojson = try await CommandLineTool.run("entitystream", ["connect", url, "--limit", "4"] + arguments)
            if arguments.contains("--out-sr") {
                #expect(geojson.status == 2 && geojson.standardError.contains("RFC 7946"))
                continue
            }
            #expect(geojson.status == 0, "\(geojson.standardError)")
            let features = geojson.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(features.count == 4)
            for feature in features {
                let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
                let properties = try #require(feature["properties"] as? [String: Any])
                #expect(coordinates == [properties["point_x"] as? Double ?? 0, properties["point_y"] as? Double ?? 0])
            }
            #expect(geojson.standardError.contains(#""event":"status""#))
        }
        let csv = try await CommandLineTool.run("entitystream", ["connect", url, "--out-sr", "2913", "--limit", "2", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.standardError)")
        let rows = csv.standardOutput.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 3 && rows[0].prefix(2) == ["x", "y"])
        let pointX = try #require(rows[0].firstIndex(of: "point_x"))
        for row in rows.dropFirst() {
            let oracle = ProjectionOracles.oregonNorthFeet(longitude: Double(row[pointX]) ?? 0, latitude: Double(row[pointX + 1]) ?? 0)
            #expect(abs((Double(row[0]) ?? 0) - oracle.x) < 7 && abs((Double(row[1]) ?? 0) - oracle.y) < 7)
        }
    }

    /// One simulator serves a generated fleet and a CSV side by side; `connect` to each gets that service's entities.
    @Test func simulatorServesServicesSideBySide() async throws {
        let csv = try temporaryFile(["bus,at,lon,lat,route",
                                     "B2,2024-05-01T08:00:00.200Z,-122.6,45.5,14",
                                     "B1,2024-05-01T08:00:00Z,-122.7,45.6,9",
                                     "B1,2024-05-01T08:00:00.400Z,-122.71,45.61,9"], extension: "csv")
        defer { try? FileManager.default.removeItem(atPath: csv) }
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), [
            "--service", "Plows=fleet:2", "--service", "Buses=\(csv)", "--columns", "Buses=track=bus,time=at,x=lon,y=lat",
            "--rate", "20", "--port", "0", "--seed", "3"])
        defer { simulator.stop() }
        let port = try #require(await simulator.waitForPort())
        let base = "http://127.0.0.1:\(port)/arcgis/rest/services"

        let buses = try await CommandLineTool.run("entitystream", ["connect", "\(base)/Buses/StreamServer", "--limit", "3", "--events", "observation"])
        #expect(buses.status == 0, "\(buses.standardError)")
        let busLines = try buses.standardOutput.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(busLines.compactMap { $0["track"] as? String } == ["B1", "B2", "B1"])
        #expect(busLines.compactMap { ($0["attributes"] as? [String: Any])?["route"] as? Int } == [9, 14, 9])

        let plows = try await CommandLineTool.run("entitystream", ["connect", "\(base)/Plows/StreamServer", "--limit", "10", "--events", "observation"])
        #expect(plows.status == 0, "\(plows.standardError)")
        let plowTracks = Set(plows.standardOutput.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["track"] as? String
        })
        #expect(plowTracks.count == 2)
        #expect(plowTracks.allSatisfy { $0.hasPrefix("TRUCK ") })

        let missing = try await CommandLineTool.run("entitystream", ["connect", "\(base)/Ferries/StreamServer", "--limit", "1"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("Ferries"))
    }

    /// `replay --hold` keeps the store after the file: a query-observations on stdin is answered from the whole
    /// history (accepted, one result per observation, a summary saying the stream ended), and closing stdin exits 0.
    @Test func replayHoldAnswersHistoryQueries() throws {
        let names = ["A", "B", "C", "D", "E"]
        let path = try temporaryFile((0..<200).map { feature(names[$0 % 5], speed: Double($0), x: -112 + Double($0) / 1000) })
        let process = try RunningProcess(CommandLineTool.path("entitystream"),
                                         ["replay", path, "--track-field", "name", "--hold", "--max-observations", "0", "--events", "observation,analysis"])
        #expect(process.readLines(200).filter { $0.contains(#""event":"observation""#) }.count == 200)
        process.write(#"{"id":"h","command":"query-observations","where":"speed >= 190","orderBy":"speed DESC","limit":5,"outFields":"speed"}"# + "\n")
        process.closeInput()
        #expect(process.wait() == 0)
        let lines = process.remainingOutput().split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.map { $0["phase"] as? String ?? "" } == ["accepted", "result", "result", "result", "result", "result", "summary"])
        let speeds = lines.compactMap { ($0["attributes"] as? [String: Any])?["speed"] as? Double }
        #expect(speeds == [199, 198, 197, 196, 195])
        #expect(lines.dropFirst().first?["track"] as? String == "E")
        let summary = try #require(lines.last)
        #expect(summary["matched"] as? Int == 10 && summary["count"] as? Int == 5)
        // The file's end and the last printed line race by a hair: either word is a replay's status.
        #expect(["ended", "replaying"].contains((summary["stream"] as? [String: Any])?["status"] as? String ?? ""))
        #expect((summary["stream"] as? [String: Any])?["observations"] as? Int == 200)
    }

    /// `stream-simulator --host` with an address this machine cannot listen on is a usage
    /// error (exit 2) naming the address, before anything starts.
    @Test(arguments: ["example.invalid", "192.0.2.1", "127.0.0.1:80"])
    func simulatorRefusesUnusableHost(host: String) async throws {
        let result = try await CommandLineTool.run("stream-simulator", ["--fleet", "1", "--port", "0", "--host", host])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("stream-simulator: --host: "), "\(result.standardError)")
        #expect(result.standardError.contains(host))
        // A flag's mistake, not a server's failure: nothing has tried to start.
        #expect(!result.standardError.contains("server could not start"), "\(result.standardError)")
    }

    /// SIGTERM or SIGINT right after the simulator announces its port stops it cleanly (exit 0), every
    /// time: the signal used to be lost when it came before the simulator's handler was registered, and
    /// the simulator then ran until killed (the CI run that never ended).
    @Test func simulatorStopsOnAnEarlySignal() throws {
        for round in 0..<12 {
            let simulator = try ChildProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "1", "--port", "0"],
                                             input: .null, output: .null, lifetime: .seconds(30))
            var announced = ""
            while !announced.contains("listening on") {
                let chunk = ChildProcess.read(simulator.standardError)
                if chunk.isEmpty { break }
                announced += String(decoding: chunk, as: UTF8.self)
            }
            #expect(announced.contains("listening on"), "round \(round): \(announced)")
            simulator.signal(round % 2 == 0 ? SIGTERM : SIGINT)
            #expect(simulator.wait() == 0, "round \(round): the simulator did not stop on its signal")
        }
    }

    /// `entitystream` told to stop at any moment of its start ends, never runs on: at once (the signal's
    /// default action, before it watches signals) or cleanly with exit 0 once it streams.
    @Test func clientStopsOnASignalAtAnyMoment() throws {
        let path = try temporaryFile([feature("A", speed: 1, x: -112), feature("B", speed: 2, x: -111.9)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        for round in 0..<12 {
            let client = try ChildProcess(CommandLineTool.path("entitystream"),
                                          ["replay", path, "--track-field", "name", "--loop", "--interval", "5"],
                                          input: .null, error: .null, lifetime: .seconds(30))
            // Even rounds signal at once; odd rounds once the first line is out (signals watched).
            if round % 2 == 1 {
                #expect(!ChildProcess.read(client.standardOutput).isEmpty, "round \(round)")
            }
            client.signal(round % 4 < 2 ? SIGTERM : SIGINT)
            let status = client.wait()
            if round % 2 == 1 {
                #expect(status == 0, "round \(round)")
            } else {
                #expect(status == 0 || status == 128 + SIGTERM || status == 128 + SIGINT, "round \(round): \(status)")
            }
        }
    }

    /// The simulator on its default host listens on 127.0.0.1 only (it used to listen on every
    /// interface while saying 127.0.0.1): 127.0.0.2 and [::1] get no answer.
    @Test func simulatorListensOnlyWhereItSays() async throws {
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "1", "--port", "0"])
        defer { simulator.stop() }
        let port = try #require(await simulator.waitForPort())
        func answers(_ address: String, _ family: Int32) -> Bool {
            let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            if family == AF_INET {
                var target = sockaddr_in()
                target.sin_family = sa_family_t(AF_INET)
                target.sin_port = in_port_t(UInt16(port).bigEndian)
                inet_pton(AF_INET, address, &target.sin_addr)
                return withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                } == 0
            }
            var target = sockaddr_in6()
            target.sin6_family = sa_family_t(AF_INET6)
            target.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, address, &target.sin6_addr)
            return withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            } == 0
        }
        #expect(answers("127.0.0.1", AF_INET))
        #expect(!answers("127.0.0.2", AF_INET))
        #expect(!answers("::1", AF_INET6))
    }
}
