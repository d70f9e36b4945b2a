import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing

/// Writes `text` to a fresh temporary file with extension `ext` and returns its path.
private func temporaryFile(_ text: String, ext: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-stats-\(UUID().uuidString).\(ext)").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Parses JSON lines.
private func objects(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

/// The `group` and `statistics` of each result line, re-serialised with sorted keys so two runs compare as text.
private func records(_ lines: [[String: Any]]) -> [String] {
    lines.filter { $0["phase"] as? String == "result" }.compactMap { line in
        guard let group = line["group"], let statistics = line["statistics"],
              let data = try? JSONSerialization.data(withJSONObject: ["group": group, "statistics": statistics], options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The key order of `line`'s `member` object as written (JSONSerialization loses it).
private func keys(of member: String, in line: Substring) -> [String] {
    guard let start = line.range(of: "\"\(member)\":{") else { return [] }
    let body = line[start.upperBound...].prefix { $0 != "}" }
    return body.split(separator: ",").compactMap { pair in pair.split(separator: ":").first.map { String($0.dropFirst().dropLast()) } }
}

@Suite("entitystream statistics", .bounded(.io))
struct StatisticsCommandLineTests {
    /// Mistakes visible in the arguments are usage errors: status 2, one stderr line naming the problem, nothing on stdout.
    @Test func usageErrors() async throws {
        let path = try temporaryFile("State,Diabetes\nUtah,7.5\n", ext: "csv")
        let cases: [([String], String)] = [
            ([path], "statistics: missing a --stat TYPE:FIELD[:ALIAS]"),
            ([path, "--stat", "median:Diabetes"], "unknown statistic type 'median'"),
            ([path, "--stat", "avg"], "expected TYPE:FIELD"),
            ([path, "--stat", "avg:Diabetes", "--order-by", "Diabetes"], "neither a group-by field nor a statistic"),
            ([path, "--stat", "avg:Diabetes", "--having", "Diabetes > 3"], "not inside an aggregate"),
            ([path, "--stat", "avg:Diabetes", "--having", "COUNT(*) >"], "having clause error at position"),
            ([path, "--stat", "avg:Diabetes", "--having", "COUNT(*) > 1", "--having", "COUNT(*) > 2"], "given twice"),
            ([path, "--stat", "sum:*"], "only COUNT takes '*'"),
            ([path, "--stat", "avg:Diabetes", "--format", "xml"], "esri, geojson or csv"),
            ([path, "--stat", "avg:Diabetes", "--where", "Diabetes >"], "--where"),
            (["--stat", "avg:Diabetes"], "missing the layer URL or file"),
            ([path, "--stat", "avg:Diabetes", "--bins", "3"], "unknown option '--bins'"),
        ]
        for (arguments, message) in cases {
            let result = try await CommandLineTool.run("entitystream", ["statistics"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.contains(message) && result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        let help = try await CommandLineTool.run("entitystream", ["statistics", "--help"])
        #expect(help.status == 0 && help.standardOutput.contains("--stat TYPE:FIELD[:ALIAS]"))
    }

    /// `--format csv` prints exactly the table written out here by hand: RFC 4180 quoting, CRLF, empty cells for null, a null group first,
    /// dates as ISO-8601; with no record, the header alone; a failure prints nothing on stdout, its JSON lines and one error line on
    /// stderr, status 1.
    @Test func csvTable() async throws {
        let path = try temporaryFile([
            "team,score,when",
            #""Alpha, Inc",1.5,2000-01-01T00:00:00Z"#,
            #""Alpha, Inc",2.5,2000-01-02T00:00:00Z"#,
            #""say ""hi""",4,2000-01-03T00:00:00Z"#,
            ",3,2000-01-04T00:00:00Z",
            "Zulu,,2000-01-05T00:00:00Z",
        ].joined(separator: "\n") + "\n", ext: "csv")
        let arguments = ["statistics", path, "--stat", "count:score", "--stat", "avg:score", "--stat", "max:when:last", "--group-by", "team", "--format", "csv"]
        let table = try await CommandLineTool.run("entitystream", arguments)
        #expect(table.status == 0, "\(table.standardError)")
        #expect(table.standardOutput == "team,COUNT_score,AVG_score,last\r\n"
            + ",1,3.0,2000-01-04T00:00:00.000Z\r\n"
            + "\"Alpha, Inc\",2,2.0,2000-01-02T00:00:00.000Z\r\n"
            + "Zulu,0,,2000-01-05T00:00:00.000Z\r\n"
            + "\"say \"\"hi\"\"\",1,4.0,2000-01-03T00:00:00.000Z\r\n")
        let descending = try await CommandLineTool.run("entitystream", arguments + ["--order-by", "COUNT_score DESC, team DESC"])
        let firstColumn: [String] = descending.standardOutput.split(separator: "\r\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).first.map(String.init) ?? "?"
        }
        #expect(firstColumn == ["\"Alpha", "\"say \"\"hi\"\"\"", "", "Zulu"])
        let none = try await CommandLineTool.run("entitystream", arguments + ["--having", "COUNT(*) > 100"])
        #expect(none.status == 0 && none.standardOutput == "team,COUNT_score,AVG_score,last\r\n")
        let failed = try await CommandLineTool.run("entitystream", ["statistics", path, "--stat", "avg:team", "--format", "csv"])
        #expect(failed.status == 1 && failed.standardOutput.isEmpty)
        #expect(failed.standardError.split(separator: "\n").filter { $0.hasPrefix("entitystream:") }.count == 1)
        #expect(failed.standardError.contains(#""phase":"failed""#) && failed.standardError.contains("AVG needs a numeric field"))
    }

    /// JSON lines: one record per group in the requested order, group then statistics in request order, then a summary;
    /// through the simulator serving the same file the groups are paged 3 at a time and the records are identical.
    @Test func remoteGroupsArePagedAndAgree() async throws {
        var lines = ["g,v,w"]
        for index in 0..<70 { lines.append("G\(index % 10),\(Double(index % 13) + 0.25),\(index % 3 == 0 ? "" : "\(index)")") }
        let path = try temporaryFile(lines.joined(separator: "\n") + "\n", ext: "csv")
        let simulator = try RunningProcess(CommandLineTool.path("stream-simulator"), ["--layer", "Groups=\(path)", "--port", "0", "--max-record-count", "3"])
        defer { simulator.stop() }
        let port = try #require(await simulator.waitForPort())
        let url = "http://127.0.0.1:\(port)/arcgis/rest/services/Groups/FeatureServer/0"
        let arguments = ["--stat", "sum:v", "--stat", "count:w:n", "--stat", "max:w", "--group-by", "g", "--order-by", "SUM_v DESC", "--having", "COUNT(*) > 1"]
        let remote = try await CommandLineTool.run("entitystream", ["statistics", url] + arguments)
        let local = try await CommandLineTool.run("entitystream", ["statistics", path] + arguments)
        #expect(remote.status == 0 && local.status == 0, "\(remote.standardError) \(local.standardError)")
        let remoteLines = objects(remote.standardOutput)
        #expect(records(remoteLines).count == 10)
        #expect(records(remoteLines) == records(objects(local.standardOutput)))
        var sums: [String: Double] = [:]
        for index in 0..<70 { sums["G\(index % 10)", default: 0] += Double(index % 13) + 0.25 }
        let order = sums.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
        #expect(remoteLines.filter { $0["phase"] as? String == "result" }.compactMap { ($0["group"] as? [String: Any])?["g"] as? String } == order)
        let firstRecord = try #require(remote.standardOutput.split(separator: "\n").first { $0.contains("\"phase\":\"result\"") })
        #expect(keys(of: "statistics", in: firstRecord) == ["SUM_v", "n", "MAX_w"])
        let summary = try #require(remoteLines.last)
        #expect(summary["phase"] as? String == "summary" && summary["records"] as? Int == 10)
        #expect(summary["pages"] as? Int == 4 && summary["paging"] as? String == "resultOffset")
        #expect(remoteLines.contains { $0["event"] as? String == "status" && $0["status"] as? String == "connected" })
    }

    /// On a held replay, the statistics control command answers over the observations and over the entities with the same records as the
    /// command line computes from the same file; refusals are responses and schema errors failed jobs.
    @Test func liveCommandOnAHeldReplay() async throws {
        var features: [String] = []
        let kinds = ["plow", "grader", "salt"]
        for index in 0..<90 {
            let speed = index % 11 == 5 ? "null" : "\(Double(index % 17) + 0.5)"
            features.append(#"{"geometry":{"x":\#(index % 7),"y":1},"attributes":{"name":"V\#(index)","kind":"\#(kinds[index % 3])","agency":\#(index % 4),"speed":\#(speed)}}"#)
        }
        let path = try temporaryFile(features.joined(separator: "\n") + "\n", ext: "json")
        let arguments = ["--stat", "count:speed", "--stat", "avg:speed", "--stat", "max:speed", "--stat", "count:*", "--group-by", "kind,agency",
                         "--order-by", "COUNT_speed DESC"]
        let file = try await CommandLineTool.run("entitystream", ["statistics", path] + arguments)
        #expect(file.status == 0, "\(file.standardError)")
        let expected = records(objects(file.standardOutput))
        #expect(expected.count == 12)

        let process = try RunningProcess(CommandLineTool.path("entitystream"), ["replay", path, "--track-field", "name", "--hold", "--events", "analysis,response"])
        // Commands are read while the replay runs: ask for the status until the replay has ended (each answer awaited, no sleep).
        var ended = false
        for attempt in 0..<10_000 where !ended {
            process.write(#"{"id":"s\#(attempt)","command":"status"}"# + "\n")
            guard let line = process.readLines(1).first else { break }
            ended = line.contains(#""status":"ended""#) && line.contains(#""observations":90"#)
        }
        try #require(ended, "the replay never ended")
        let statistics = #"["count:speed","avg:speed","max:speed","count:*"],"groupBy":["kind","agency"],"orderBy":"COUNT_speed DESC""#
        process.write(#"{"id":"o","command":"statistics","of":"observations","statistics":\#(statistics)}"# + "\n")
        process.write(#"{"id":"e","command":"statistics","of":"entities","statistics":\#(statistics)}"# + "\n")
        process.write(#"{"id":"r","command":"statistics","statistics":["avg:speed"],"orderBy":"kind"}"# + "\n")
        process.write(#"{"id":"f","command":"statistics","statistics":["avg:kind"]}"# + "\n")
        process.closeInput()
        #expect(process.wait() == 0)
        let lines = objects(process.remainingOutput())
        for id in ["o", "e"] {
            let own = lines.filter { $0["id"] as? String == id }
            #expect(own.first?["phase"] as? String == "accepted" && own.last?["phase"] as? String == "summary")
            #expect(records(own) == expected, "\(id)")
            #expect(own.last?["rows"] as? Int == 90)
        }
        let refused = try #require(lines.first { $0["id"] as? String == "r" })
        #expect(refused["event"] as? String == "response" && refused["ok"] as? Bool == false)
        #expect((refused["error"] as? String)?.contains("neither a group-by field nor a statistic") == true)
        let failed = lines.filter { $0["id"] as? String == "f" }.map { $0["phase"] as? String ?? "" }
        #expect(failed == ["accepted", "failed"])
    }
}
