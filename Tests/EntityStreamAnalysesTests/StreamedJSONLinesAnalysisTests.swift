import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamHotSpots
import EntityStreamStatistics
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

/// One feature the test writes.
private struct Written {
    var id: Int
    var group: String
    var value: Double?
    var time: Int64
    var x: Double
    var y: Double
}

private let groups = ["north", "Zürich, \"CH\"", "日本", "emoji 🚢", "tab\tx"]

private func written(_ count: Int, seed: UInt64) -> [Written] {
    var random = SplitMix64(seed: seed)
    return (1...count).map { id in
        Written(id: id, group: groups[random.next(below: groups.count)],
                value: random.chance(0.1) ? nil : Double(random.next(below: 8001) - 4000) / 8,
                time: 1_700_000_000_000 + Int64(id) * 60_000,
                x: Double(random.next(below: 2000)) / 100 - 10, y: Double(random.next(below: 2000)) / 100 + 30)
    }
}

private func json(_ text: String) -> String { TestFiles.jsonString(text) }

/// The file in a line format: Esri JSON lines or a GeoJSON sequence.
enum StreamedLineFormat: String, CaseIterable, CustomStringConvertible {
    case esri, geoJSONSeq
    var description: String { rawValue }

    fileprivate func write(_ features: [Written]) throws -> String {
        let lines = features.map { feature -> String in
            let value = feature.value.map { "\($0)" } ?? "null"
            switch self {
            case .esri:
                return "{\"geometry\":{\"x\":\(feature.x),\"y\":\(feature.y),\"spatialReference\":{\"wkid\":4326}},"
                    + "\"attributes\":{\"fid\":\(feature.id),\"grp\":\(json(feature.group)),\"val\":\(value),\"t\":\(feature.time)}}"
            case .geoJSONSeq:
                return "\u{1E}{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(feature.x),\(feature.y)]},"
                    + "\"properties\":{\"fid\":\(feature.id),\"grp\":\(json(feature.group)),\"val\":\(value),\"t\":\(feature.time)}}"
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

private let load = FeatureLoadOptions(mapping: FeatureColumnMapping(time: "t"))
/// The whole-file loader refuses files over 4 KiB with these options; a
/// streamed read does not apply that limit, so a job that answers read the file in chunks.
private let streamedOnly = FeatureLoadOptions(mapping: FeatureColumnMapping(time: "t"), maximumFileSize: 4096)

private func agree(_ a: Double?, _ b: Double?, tolerance: Double = 1e-12) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a == b || abs(a - b) <= tolerance * max(abs(a), abs(b))
}

@Suite("Statistics, queries and hot spots over streamed JSON lines equal the test's own answers", .bounded)
struct StreamedJSONLinesAnalysisTests {
    /// About fifty chunks (1,000 features in chunks of 2,500 bytes): the groups' count, sum, mean and extremes with a
    /// where clause and a time extent, against the test's own group-by.
    @Test("grouped statistics over many chunks", arguments: StreamedLineFormat.allCases)
    func statistics(format: StreamedLineFormat) async throws {
        let data = written(1000, seed: 11)
        let path = try format.write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let start = data[50].time, end = data[900].time
        let query = FeatureQuery(whereClause: "val > -300", time: try TimeExtent(start: start, end: end))
        let request = try StatisticsRequest(statisticSpecs: ["count:val", "sum:val", "avg:val", "min:val", "max:val", "count:*:n"], groupBy: ["grp"])
        var job = FileStatisticsJob(path: path, load: streamedOnly, request: request, query: query)
        job.chunkSize = 2500
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job)
        let records = events.filter { $0.phase == .result }.map(\.members)

        let selected = data.filter { $0.time >= start && $0.time <= end && ($0.value ?? -1e9) > -300 }
        var byGroup: [String: [Written]] = [:]
        for row in selected { byGroup[row.group, default: []].append(row) }
        #expect(records.count == byGroup.count)
        for record in records {
            let group = try #require(record["group"]?["grp"]?.stringValue)
            let members = try #require(byGroup[group], "unexpected group \(group)")
            let values = members.compactMap(\.value)
            let statistics = try #require(record["statistics"]?.objectValue)
            #expect(statistics["COUNT_val"] == .int(Int64(values.count)))
            #expect(statistics["n"] == .int(Int64(members.count)))
            #expect(statistics["SUM_val"]?.doubleValue == values.reduce(0, +))
            #expect(agree(statistics["AVG_val"]?.doubleValue, values.reduce(0, +) / Double(values.count)))
            #expect(statistics["MIN_val"]?.doubleValue == values.min() && statistics["MAX_val"]?.doubleValue == values.max())
        }
        let summary = try #require(events.last)
        #expect(summary.members["fileRows"] == .int(1000) && summary.members["rows"] == .int(Int64(selected.count)))
    }

    /// Unordered matches come in file order; ordered with a limit, the
    /// top k by value (ties by object id); both against the test's selection.
    @Test("queries over many chunks: in file order, and top-k", arguments: StreamedLineFormat.allCases)
    func query(format: StreamedLineFormat) async throws {
        let data = written(750, seed: 12)
        let path = try format.write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        var plain = FeatureQuery(whereClause: "val < 0 AND grp <> 'north'")
        plain.outFields = ["fid", "grp"]
        var job = FileQueryJob(path: path, load: streamedOnly, query: plain)
        job.chunkSize = 2000
        let events = try await harness.run(job, command: "query")
        let found = events.filter { $0.phase == .result }.compactMap { $0.feature?.attributes["fid"]?.intValue }
        let expected = data.filter { ($0.value ?? 0) < 0 && $0.group != "north" }.map { Int64($0.id) }
        #expect(found == expected)
        #expect(events.last?.members["rows"] == .int(750) && events.last?.members["count"] == .int(Int64(expected.count)))

        var top = FeatureQuery(whereClause: "val IS NOT NULL")
        top.outFields = ["fid"]
        top.orderBy = [OrderByField(field: "val", descending: true)]
        top.resultRecordCount = 25
        var topJob = FileQueryJob(path: path, load: streamedOnly, query: top)
        topJob.chunkSize = 2000
        let best = try await harness.run(topJob, command: "query").filter { $0.phase == .result }.compactMap { $0.feature?.attributes["fid"]?.intValue }
        let oracle = data.filter { $0.value != nil }.sorted { ($0.value!, -$0.id) > ($1.value!, -$1.id) }.prefix(25).map { Int64($0.id) }
        #expect(best == Array(oracle))
    }

    /// The hot-spot selection gathered chunk by chunk (only points, values
    /// and ids kept) equals the selection of the whole table, point for point.
    @Test("hot-spot points gathered per chunk equal the whole table's")
    func hotSpotPoints() async throws {
        let data = written(600, seed: 13)
        let path = try StreamedLineFormat.geoJSONSeq.write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try await JSONLinesFileScan.open(path: path, options: load, chunkSize: 1500))
        var gathered: HotSpotTableSelection.Gathered?
        var chunks = 0
        _ = try await scan.scan(neededFields: nil) { table in
            try HotSpotTableSelection.gather(from: table, whereClause: "val > 0", valueField: "val")
        } consume: { part in
            chunks += 1
            if gathered == nil { gathered = part } else { gathered?.append(part) }
        }
        #expect(chunks > 10)
        let streamed = try #require(gathered).selection()
        let whole = try HotSpotTableSelection.select(from: try FeatureFile.load(path: path, options: load), whereClause: "val > 0", valueField: "val")
        let positive = data.filter { ($0.value ?? 0) > 0 }
        #expect(streamed.matchedCount == positive.count && whole.matchedCount == positive.count)
        #expect(streamed.sourceIDs == whole.sourceIDs)
        #expect(streamed.sourceIDs == positive.map { Int64($0.id) })
        #expect(streamed.input.x == whole.input.x && streamed.input.y == whole.input.y && streamed.input.values == whole.input.values)
        #expect(streamed.input.values == positive.compactMap(\.value))
    }
}
