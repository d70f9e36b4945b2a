import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamStatistics
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

/// One row the test writes.
private struct Written {
    var group: String?
    var category: String
    var value: Double?
    var time: Int64
}

/// Group names that make chunk boundaries interesting: quoted commas, line
/// breaks and quotes, multi-byte UTF-8, an empty string (quoted) and NULL
/// (an empty unquoted field).
private let groupNames: [String?] = ["north", "Zürich, CH", "日本", "line\nbreak", "quote \"q\"", "", nil, "emoji 🚢"]

private func csvField(_ text: String?) -> String {
    guard let text else { return "" }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// `count` seeded rows: dyadic values (sums exact), some null.
private func rows(_ count: Int, seed: UInt64) -> [Written] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in
        Written(group: groupNames[random.next(below: groupNames.count)], category: ["a", "b", "c", "d"][random.next(below: 4)],
                value: random.chance(0.1) ? nil : Double(random.next(below: 8001) - 4000) / 8,
                time: 1_700_000_000_000 + Int64(index) * 60_000)
    }
}

private func writeCSV(_ rows: [Written], lineEnd: String) throws -> String {
    var text = "grp,cat,val,t,lon,lat" + lineEnd
    for (index, row) in rows.enumerated() {
        let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(row.time) / 1000))
        text += [csvField(row.group), row.category, row.value.map { "\($0)" } ?? "", iso, "\(Double(index % 360) - 180)", "45.5"]
            .joined(separator: ",") + lineEnd
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString).csv").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Doubles equal to `tolerance` relative; everything else equal.
private func agree(_ a: JSONValue, _ b: JSONValue, tolerance: Double = 1e-12) -> Bool {
    if let x = a.doubleValue, let y = b.doubleValue, a.intValue == nil || b.intValue == nil {
        return x == y || abs(x - y) <= tolerance * max(abs(x), abs(y))
    }
    if let x = a.objectValue, let y = b.objectValue {
        return x.keys == y.keys && x.keys.allSatisfy { agree(x[$0] ?? .null, y[$0] ?? .null, tolerance: tolerance) }
    }
    return a == b
}

private func results(_ events: [AnalysisEvent]) -> [JSONValue] {
    events.filter { $0.phase == .result }.map { .object($0.members) }
}

@Suite("Statistics over a streamed CSV equal a naive group-by and the whole-file path", .bounded)
struct StreamedStatisticsTests {
    static let specs = ["count:val", "sum:val", "avg:val", "stddev:val", "min:val", "max:val", "count:*:n", "min:cat", "max:cat"]

    /// Small chunks (about a hundred of 1,500 rows, or twenty-five) so
    /// boundaries fall inside quoted fields and multi-byte characters; a
    /// where clause and a time extent.
    @Test("grouped statistics, where and time, many chunks", arguments: [("\n", UInt64(7), 499), ("\r\n", UInt64(8), 2039)])
    func againstNaiveGroupBy(lineEnd: String, seed: UInt64, chunkSize: Int) async throws {
        let data = rows(1500, seed: seed)
        let path = try writeCSV(data, lineEnd: lineEnd)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let start = data[100].time, end = data[1350].time
        let query = FeatureQuery(whereClause: "val > -250", time: try TimeExtent(start: start, end: end))
        let request = try StatisticsRequest(statisticSpecs: Self.specs, groupBy: ["grp"])
        let load = FeatureLoadOptions(mapping: FeatureColumnMapping(time: "t"))
        var job = FileStatisticsJob(path: path, load: load, request: request, query: query)
        job.chunkSize = chunkSize
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job)
        let streamed = results(events)

        // The test's own group-by.
        let selected = data.filter { $0.time >= start && $0.time <= end && ($0.value ?? -1e9) > -250 }
        var groups: [String?: [Written]] = [:]
        for row in selected { groups[row.group, default: []].append(row) }
        #expect(streamed.count == groups.count)
        for record in streamed {
            let group = try #require(record.objectValue?["group"]?.objectValue?["grp"])
            let key: String? = group == .null ? nil : group.stringValue
            let members = try #require(groups[key])
            let values = members.compactMap(\.value)
            let statistics = try #require(record.objectValue?["statistics"]?.objectValue)
            let n = Double(values.count)
            let mean = values.reduce(0, +) / n
            let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)
            #expect(statistics["COUNT_val"] == .int(Int64(values.count)))
            #expect(statistics["n"] == .int(Int64(members.count)))
            #expect(statistics["SUM_val"]?.doubleValue == values.reduce(0, +))
            #expect(agree(statistics["AVG_val"] ?? .null, .double(mean)))
            #expect(agree(statistics["STDDEV_val"] ?? .null, .double(variance.squareRoot()), tolerance: 1e-10))
            #expect(statistics["MIN_val"]?.doubleValue == values.min() && statistics["MAX_val"]?.doubleValue == values.max())
            #expect(statistics["MIN_cat"] == .string(members.map(\.category).min() ?? "")
                    && statistics["MAX_cat"] == .string(members.map(\.category).max() ?? ""))
        }
        let summary = try #require(events.last)
        #expect(summary.phase == .summary)
        #expect(summary.members["fileRows"] == .int(1500) && summary.members["rows"] == .int(Int64(selected.count)))

        // The whole-file path: the same records in the same order.
        let table = try FeatureFile.load(path: path, options: load)
        let plan = try StatisticsPlan(request, schema: table.schema)
        var statisticsQuery = query
        request.apply(to: &statisticsQuery, plan: plan)
        let engine = FeatureQueryEngine(maxRecordCount: Int.max, statistics: TableStatisticsEngine())
        guard case .statistics(let answer) = try engine.run(statisticsQuery, on: table) else { Issue.record("no statistics"); return }
        let whole = plan.records(from: answer).map { JSONValue.object($0.members) }
        #expect(whole.count == streamed.count)
        #expect(zip(whole, streamed).allSatisfy { agree($0, $1) })
    }

    /// A value column that reads as integers for the first chunks and has a
    /// decimal near the end: the job restarts with the loader's type, so
    /// the sum counts the decimal instead of ignoring it as text.
    @Test("a type that widens late is read as the whole-file path reads it")
    func lateDecimal() async throws {
        var text = "grp,val\n"
        var sum = 0.0
        for i in 0..<5000 {
            text += "g\(i % 4),\(i)\n"
            if i % 4 == 1 { sum += Double(i) }
        }
        text += "g1,0.5\n"
        sum += 0.5
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("widen-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var job = FileStatisticsJob(path: path, request: try StatisticsRequest(statisticSpecs: ["sum:val", "count:val"], groupBy: ["grp"]),
                                    query: FeatureQuery(whereClause: "grp = 'g1'"))
        job.chunkSize = 1 << 10
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let streamed = results(try await harness.run(job))
        #expect(streamed.count == 1)
        let statistics = streamed.first?.objectValue?["statistics"]?.objectValue
        #expect(statistics?["SUM_val"] == .double(sum))
        #expect(statistics?["COUNT_val"] == .int(1251))
    }

    /// A bad record deep in the file fails the job with the file's line, and no record is printed.
    @Test("a bad record far into the file fails with its line")
    func badRecord() async throws {
        var text = "grp,val\n"
        for i in 0..<4000 { text += "g\(i % 4),\(i)\n" }
        text += "g1,2,3\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var job = FileStatisticsJob(path: path, request: try StatisticsRequest(statisticSpecs: ["sum:val"], groupBy: ["grp"]))
        job.chunkSize = 1 << 10
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job)
        #expect(events.last?.phase == .failed)
        #expect(results(events).isEmpty)
        let message = "\(events.last?.members ?? JSONObject())"
        #expect(message.contains(".csv:4002: expected 2 fields"), "\(message)")
    }

    /// Only the columns an analysis reads are converted: a coordinate that
    /// is no number, in a file whose statistics read neither coordinate,
    /// is no error and its row is aggregated; with a geometry filter the
    /// coordinates are read and the same record fails with its line and column.
    @Test("a bad value fails only when its column is read")
    func badValueInUnreadColumn() async throws {
        var text = "grp,val,lon,lat\n"
        var sums = [0.0, 0.0]
        for i in 0..<3000 {
            let lon = i == 2500 ? "east" : "\(Double(i % 300) / 10)"
            text += "g\(i % 2),\(i),\(lon),10\n"
            sums[i % 2] += Double(i)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("unread-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let request = try StatisticsRequest(statisticSpecs: ["sum:val"], groupBy: ["grp"])
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }

        var job = FileStatisticsJob(path: path, request: request)
        job.chunkSize = 1 << 10
        let answered = results(try await harness.run(job)).compactMap { $0.objectValue?["statistics"]?.objectValue?["SUM_val"]?.doubleValue }
        #expect(answered == sums)

        var filtered = FileStatisticsJob(path: path, request: request,
                                         query: FeatureQuery(geometry: Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 20, wkid: 4326)))
        filtered.chunkSize = 1 << 10
        let events = try await harness.run(filtered)
        #expect(events.last?.phase == .failed)
        let message = "\(events.last?.members ?? JSONObject())"
        #expect(message.contains(".csv:2502: x column 'lon': 'east' is not a number"), "\(message)")
    }

    /// A time column the analysis reads is converted in every record, the
    /// records the where clause drops included: a time that is no time fails
    /// with its line and column, as loading the file whole does.
    @Test("a bad time in a record the filter drops still fails")
    func badTimeInDroppedRecord() async throws {
        var text = "grp,val,t\n"
        for i in 0..<3000 { text += "g\(i % 2),\(i),\(i == 2000 ? "soon" : "\(1_700_000_000 + i)")\n" }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("badtime-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var job = FileStatisticsJob(path: path, load: FeatureLoadOptions(mapping: FeatureColumnMapping(time: "t")),
                                    request: try StatisticsRequest(statisticSpecs: ["sum:val"], groupBy: ["grp"]),
                                    query: FeatureQuery(whereClause: "val < 100", time: try TimeExtent(start: 0, end: nil)))
        job.chunkSize = 1 << 10
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job)
        #expect(events.last?.phase == .failed)
        let message = "\(events.last?.members ?? JSONObject())"
        #expect(message.contains(".csv:2002: time column 't': cannot read 'soon'"), "\(message)")
    }
}
