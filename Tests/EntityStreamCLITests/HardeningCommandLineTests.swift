import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamTransport
import EntityStreamModel

/// Writes `text` to a temporary file and returns its path.
private func temporaryFile(_ text: String, extension suffix: String = "json") throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-\(UUID().uuidString).\(suffix)").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private func feature(_ name: String, speed: Double) -> String {
    #"{"geometry":{"x":-111.9,"y":40.6,"spatialReference":{"wkid":4326}},"attributes":{"name":"\#(name)","speed":\#(speed)}}"#
}

/// The JSON objects of the output lines.
private func objects(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

private let recordingHeader = #"{"recording":"entitystream","version":1,"service":"http://h/arcgis/rest/services/R/StreamServer","startedAt":0,"description":{"fields":[{"name":"name","type":"esriFieldTypeString"},{"name":"speed","type":"esriFieldTypeDouble"}],"timeInfo":{"trackIdField":"name"},"spatialReference":{"wkid":4326},"streamUrls":[{"transport":"ws","urls":["ws://h/s"]}]}}"#

@Suite("entitystream command line: hardening", .bounded(.io))
struct HardeningCommandLineTests {
    /// One bad line of a recording is an `error` event in its place and the
    /// replay goes on (it used to exit 1 with no output); a "t" that is not a
    /// whole number is named as such.
    @Test func badRecordingLineIsAnErrorEvent() async throws {
        let path = try temporaryFile([recordingHeader, #"{"t":0,"message":\#(feature("A", speed: 1))}"#, #"{"t":1e300,"message":\#(feature("B", speed: 2))}"#,
                                      #"{"t":0.5,"message":{}}"#, "garbage", #"{"t":20,"message":\#(feature("C", speed: 3))}"#].joined(separator: "\n"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--events", "observation,error"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(lines.map { $0["event"] as? String ?? "" } == ["observation", "error", "error", "error", "observation"])
        #expect(lines.map { $0["track"] as? String ?? "" } == ["A", "", "", "", "C"])
        let messages = lines.compactMap { $0["message"] as? String }
        try #require(messages.count == 3)
        #expect(messages[0].contains("line 3:") && messages[0].contains(#""t" must be a whole number of milliseconds"#) && messages[0].contains("1e300"))
        #expect(messages[1].contains("line 4:") && messages[1].contains("0.5"))
        #expect(messages[2].contains("line 5: not a recording line"))
        #expect(lines.compactMap { $0["count"] as? Int } == [1, 2, 3])
    }

    /// A recording whose last "t" is Int64.max replays at --speed 1 (and loops
    /// at --speed 1e6) without crashing: that line is reported, the rest plays.
    @Test func extremeOffsetsDoNotCrash() async throws {
        let path = try temporaryFile([recordingHeader, #"{"t":0,"message":\#(feature("A", speed: 1))}"#,
                                      #"{"t":9223372036854775807,"message":\#(feature("B", speed: 2))}"#].joined(separator: "\n"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let once = try await CommandLineTool.run("entitystream", ["replay", path, "--speed", "1", "--events", "observation,error"])
        #expect(once.status == 0, "\(once.standardError)")
        #expect(objects(once.standardOutput).map { $0["event"] as? String ?? "" } == ["observation", "error"])
        let looped = try await CommandLineTool.run("entitystream", ["replay", path, "--loop", "--speed", "1000000", "--limit", "3", "--events", "observation"])
        #expect(looped.status == 0, "\(looped.standardError)")
        #expect(objects(looped.standardOutput).count == 3)
    }

    /// Feature lines whose first line is an array message, with a UTF-8
    /// byte-order mark, replay as feature lines.
    @Test func arrayFirstLineAndByteOrderMark() async throws {
        let path = try temporaryFile("\u{FEFF}[\(feature("A", speed: 1)),\(feature("B", speed: 2))]\n\(feature("C", speed: 3))\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "name", "--events", "observation"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(objects(result.standardOutput).map { $0["track"] as? String ?? "" } == ["A", "B", "C"])
    }

    /// `replay -` reads the file from stdin.
    @Test func replayReadsStandardInput() async throws {
        let text = [feature("A", speed: 1), feature("B", speed: 2)].joined(separator: "\n")
        let result = try await CommandLineTool.run("entitystream", ["replay", "-", "--track-field", "name", "--events", "observation,status"], input: text)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(objects(result.standardOutput).compactMap { $0["track"] as? String } == ["A", "B"])
        let hold = try await CommandLineTool.run("entitystream", ["replay", "-", "--hold"], input: text)
        #expect(hold.status == 2)
        #expect(hold.standardError.contains("--hold"))
    }

    /// `replay --csv` plays a CSV track (the hint of a file without features
    /// names it), in time order, timed with --speed.
    @Test func replayPlaysCSVTracks() async throws {
        let csv = "\u{FEFF}bus,at,lon,lat,route\nB2,2024-05-01T08:00:00.200Z,-122.6,45.5,14\nB1,2024-05-01T08:00:00Z,-122.7,45.6,9\nB1,2024-05-01T08:00:00.400Z,-122.71,45.61,9\n"
        let path = try temporaryFile(csv, extension: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let hint = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "bus"])
        #expect(hint.status == 1)
        #expect(hint.standardError.contains("--columns track=…,time=…,x=…,y=…"), "\(hint.standardError)")
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--columns", "track=bus,time=at,x=lon,y=lat", "--speed", "1000",
                                                              "--events", "observation"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = objects(result.standardOutput)
        #expect(lines.compactMap { $0["track"] as? String } == ["B1", "B2", "B1"])
        #expect(lines.compactMap { ($0["attributes"] as? [String: Any])?["route"] as? Int } == [9, 14, 9])
        #expect(lines.compactMap { ($0["geometry"] as? [String: Any])?["x"] as? Double } == [-122.7, -122.6, -122.71])
        let bad = try await CommandLineTool.run("entitystream", ["replay", path, "--columns", "track=bus,time=when,x=lon,y=lat"])
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("no column 'when'"))
    }

    /// A flag's value is the next word whatever it starts with, and
    /// `--flag=value` splits only in flag position; a flag without a value
    /// refuses an attached one.
    @Test func flagValuesMayStartWithDashes() async throws {
        let path = try temporaryFile([feature("A", speed: 1), feature("B", speed: -1)].joined(separator: "\n"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["--where", "--1 = 1"], ["--where=--1 = 1"], ["--where", "speed > -2 AND -speed < --2"]] {
            let result = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "name", "--events", "observation"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(objects(result.standardOutput).count == 2, "\(arguments)")
        }
        let filtered = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field=name", "--where=speed = -1", "--events=observation"])
        #expect(objects(filtered.standardOutput).compactMap { $0["track"] as? String } == ["B"])
        let attached = try await CommandLineTool.run("entitystream", ["replay", path, "--loop=yes"])
        #expect(attached.status == 2)
        #expect(attached.standardError == "entitystream: --loop takes no value (given 'yes')\n")
    }

    /// The demo's help states its own defaults: --max-duration 300 and where "speed > 0".
    @Test func demoHelpStatesItsDefaults() async throws {
        let demo = try await CommandLineTool.run("entitystream", ["demo", "--help"])
        #expect(demo.status == 0)
        let maxDuration = try #require(demo.standardOutput.split(separator: "\n").first { $0.contains("--max-duration S") })
        #expect(maxDuration.hasSuffix("(0 = off; default 300)"))
        #expect(demo.standardOutput.contains(#"--where SQL                 where clause, e.g. "speed > 0" (default "speed > 0")"#))
        let connect = try await CommandLineTool.run("entitystream", ["connect", "--help"])
        #expect(connect.standardOutput.contains("(0 = off; default off)"))
        #expect(connect.standardOutput.contains("--allow-plaintext-token"))
    }

    /// A service answering 404 with an HTML page fails with exactly one line on stderr.
    @Test func htmlErrorIsOneStderrLine() async throws {
        // A server on threads of its own: this test blocks while the child runs.
        let body = "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        let server = try RawHTTPResponder.start { _ in
            Array("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        }
        defer { server.stop() }
        let result = try await CommandLineTool.run("entitystream", ["connect", "http://127.0.0.1:\(server.port)/arcgis/rest/services/S/StreamServer?token=cli-secret-9",
                                                              "--reconnect-attempts", "0"])
        #expect(result.status == 1)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(result.standardError)")
        #expect(lines[0].hasPrefix("entitystream: ") && lines[0].contains("404"))
        #expect(!result.standardError.contains("cli-secret-9") && !result.standardOutput.contains("cli-secret-9"))
    }

    /// `record` keeps no credential: the file's header has the URL with the
    /// token masked and no `streamUrls` token; the `status` command's
    /// `service` masks a token given in the URL; nothing printed holds either.
    @Test func credentialsAreNeitherStoredNorPrinted() async throws {
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--fleet", "2", "--rate", "20", "--port", "0", "--token", "rest-secret-5"])
        defer { simulator.stop() }
        let port = try #require(await simulator.waitForPort())
        let url = "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer"
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let record = try await CommandLineTool.run("entitystream", ["record", url, "-o", output, "--token", "rest-secret-5", "--limit", "5"])
        #expect(record.status == 0, "\(record.standardError)")
        let file = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!file.contains("rest-secret-5"))
        let header = try JSONParser.parse(String(file.split(separator: "\n")[0]))
        #expect(header["service"]?.stringValue == url)
        #expect(header["description"]?["streamUrls"]?[0]?["token"] == nil)
        #expect(header["description"]?["streamUrls"]?[0]?["urls"] != nil)
        #expect(!record.standardOutput.contains("rest-secret-5") && !record.standardError.contains("rest-secret-5"))

        let connect = try RunningProcess(CommandLineTool.path("entitystream"), ["connect", "\(url)?token=rest-secret-5", "--events", "response,status"])
        connect.write(#"{"id":1,"command":"status"}"# + "\n")
        var response: [String: Any]?
        // Line by line: after the statuses and the response nothing more comes until SIGINT.
        for _ in 0..<6 {
            guard let line = connect.readLines(1).first else { break }
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["event"] as? String == "response" {
                response = object
                break
            }
        }
        connect.signal(SIGINT)
        #expect(connect.wait() == 0)
        let service = (response?["result"] as? [String: Any])?["service"] as? String
        #expect(service == "\(url)?token=***")
        #expect(!connect.remainingOutput().contains("rest-secret-5"))
    }

    /// A command line of several megabytes is one command (one response),
    /// not pieces answered one by one.
    @Test func longCommandLineIsOneCommand() async throws {
        let path = try temporaryFile(feature("A", speed: 1))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ids = (0..<200_000).map { "\"T\($0)\"" }.joined(separator: ",")
        let input = #"{"id":"big","command":"query-entities","trackIds":[\#(ids),"A"]}"# + "\n"
        let result = try await CommandLineTool.run("entitystream", ["replay", path, "--track-field", "name", "--hold", "--events", "response"], input: input)
        #expect(result.status == 0, "\(result.standardError)")
        let responses = objects(result.standardOutput)
        #expect(responses.count == 1)
        #expect(responses.first?["id"] as? String == "big" && responses.first?["ok"] as? Bool == true)
        #expect(((responses.first?["result"] as? [String: Any])?["count"] as? Int) == 1)
    }
}
