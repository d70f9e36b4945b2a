import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

/// One row the test writes: its id (also its line order), a label, a value (some null), a time.
private struct Row {
    var id: Int64
    var label: String
    var value: Double?
    var time: Int64
}

private func rows(_ count: Int, seed: UInt64) -> [Row] {
    var random = SplitMix64(seed: seed)
    let labels = ["plain", "comma, inside", "日本語", "two\nlines", "quote \"x\"", "🚢 vessel"]
    return (1...count).map { id in
        Row(id: Int64(id), label: labels[random.next(below: labels.count)],
            value: random.chance(0.05) ? nil : Double(random.next(below: 20001) - 10000) / 4, time: 1_600_000_000_000 + Int64(id) * 1000)
    }
}

private func write(_ rows: [Row], extra: String = "") throws -> String {
    var text = "id,label,val,t,x,y\n"
    for row in rows {
        let label = "\"" + row.label.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        text += "\(row.id),\(label),\(row.value.map { "\($0)" } ?? ""),\(row.time),\(Double(row.id % 100) / 10),\(Double(row.id % 50) / 10)\n"
    }
    text += extra
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("query-\(UUID().uuidString).csv").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private let load = FeatureLoadOptions(mapping: FeatureColumnMapping(time: "t"))

/// The features the job wrote, and its summary.
private func run(_ query: FeatureQuery, path: String, chunkSize: Int = 750, sortRunBytes: Int? = nil, temporaryDirectory: String? = nil)
    async throws -> (features: [AnalysisFeature], summary: AnalysisEvent?) {
    var job = FileQueryJob(path: path, load: load, query: query)
    job.chunkSize = chunkSize
    if let sortRunBytes { job.sortRunBytes = sortRunBytes }
    if let temporaryDirectory { job.temporaryDirectory = temporaryDirectory }
    let harness = await AnalysisHarness(schema: Schema(fields: []))
    defer { Task { await harness.close() } }
    let events = try await harness.run(job, command: "query")
    return (events.filter { $0.phase == .result }.compactMap(\.feature), events.last)
}

/// The same query answered from the whole file, as the job answered before streaming.
private func whole(_ query: FeatureQuery, path: String) throws -> [AnalysisFeature] {
    let table = try FeatureFile.load(path: path, options: load)
    guard case .features(let selection) = try FeatureQueryEngine(maxRecordCount: Int.max).run(query, on: table) else { return [] }
    return selection.rows.indices.map { position in
        AnalysisFeature(table: table, row: selection.rows[position], fields: selection.fieldIndices, geometry: selection.geometry(at: position))
    }
}

private func ids(_ features: [AnalysisFeature]) -> [Int64] { features.compactMap { $0.attributes["id"]?.intValue } }

@Suite("Queries over a streamed CSV: matches written as found, top-k when ordered", .bounded)
struct StreamedQueryTests {
    /// Where and time over about a hundred chunks (2,000 rows in chunks of
    /// 750 bytes): the matches in file order, exactly the whole-file answer,
    /// and the ids the test selects itself.
    @Test("where and time: the matches in file order, as the whole-file answer")
    func whereAndTime() async throws {
        let data = rows(2000, seed: 11)
        let path = try write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let start = data[150].time, end = data[1750].time
        let query = FeatureQuery(whereClause: "val > 100 AND label <> 'plain'", time: try TimeExtent(start: start, end: end))
        let answer = try await run(query, path: path)
        let expected = data.filter { $0.time >= start && $0.time <= end && ($0.value ?? 0) > 100 && $0.label != "plain" }.map(\.id)
        #expect(ids(answer.features) == expected)
        #expect(answer.features == (try whole(query, path: path)))
        #expect(answer.summary?.phase == .summary)
        #expect(answer.summary?.members["rows"] == .int(2000) && answer.summary?.members["count"] == .int(Int64(expected.count)))
    }

    /// Ordered with a limit: the best k over all chunks (ties by object id), as the whole-file answer.
    @Test("order by with a limit: the top k of the whole file", arguments: [1, 7, 250])
    func topK(limit: Int) async throws {
        let data = rows(2000, seed: 12)
        let path = try write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var query = FeatureQuery(whereClause: "val IS NOT NULL")
        query.orderBy = [OrderByField(field: "label", descending: true), OrderByField(field: "val", descending: false)]
        query.resultRecordCount = limit
        let answer = try await run(query, path: path)
        let expected = data.filter { $0.value != nil }.sorted { a, b in
            if a.label != b.label { return Array(a.label.unicodeScalars.map(\.value)).lexicographicallyPrecedes(b.label.unicodeScalars.map(\.value)) == false }
            if a.value != b.value { return a.value! < b.value! }
            return a.id < b.id
        }.prefix(limit).map(\.id)
        #expect(ids(answer.features) == Array(expected))
        #expect(answer.features == (try whole(query, path: path)))
        #expect(answer.summary?.members["count"] == .int(Int64(limit)))
    }

    /// Ordered without a limit, with runs of 4 KiB: the matches go through
    /// dozens of sorted temporary files and come out in the test's own
    /// order (ties by object id, which is the line order), equal to the
    /// whole-file answer, geometry and dates included. A temporary directory
    /// that does not exist fails the query with a message naming it, which
    /// shows the matches were written out.
    @Test("order by without a limit: an external sort through temporary files")
    func externalSort() async throws {
        let data = rows(2000, seed: 17)
        let path = try write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var query = FeatureQuery(whereClause: "val IS NOT NULL OR id > 1950")
        query.orderBy = [OrderByField(field: "val", descending: true)]
        let answer = try await run(query, path: path, sortRunBytes: 4096)
        let expected = data.filter { $0.value != nil || $0.id > 1950 }.sorted { a, b in
            // Nulls sort first, so last when descending; ties by id.
            switch (a.value, b.value) {
            case let (x?, y?) where x != y: return x > y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return a.id < b.id
            }
        }.map(\.id)
        #expect(ids(answer.features) == expected)
        #expect(answer.features == (try whole(query, path: path)))
        #expect(answer.summary?.members["count"] == .int(Int64(expected.count)))

        let missing = "/nonexistent-\(UUID().uuidString)"
        var job = FileQueryJob(path: path, load: load, query: query)
        job.chunkSize = 750
        job.sortRunBytes = 4096
        job.temporaryDirectory = missing
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job, command: "query")
        #expect(events.last?.phase == .failed)
        #expect("\(events.last?.members ?? JSONObject())".contains("cannot make a temporary file in \(missing)"))
        #expect(events.filter { $0.phase == .result }.isEmpty)
    }

    /// A limit without an order: the first matches of the file, and reading stops (no `rows`).
    @Test("a limit without order: the first matches, reading stops early")
    func firstMatches() async throws {
        let data = rows(2000, seed: 13)
        let path = try write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var query = FeatureQuery(whereClause: "val < 0")
        query.resultRecordCount = 30
        let answer = try await run(query, path: path)
        #expect(ids(answer.features) == Array(data.filter { ($0.value ?? 0) < 0 }.prefix(30).map(\.id)))
        #expect(answer.summary?.members["count"] == .int(30))
        #expect(answer.summary?.members["rows"] == nil)
    }

    /// Count only: the test's own count, and the file's rows.
    @Test("count only")
    func countOnly() async throws {
        let data = rows(1500, seed: 14)
        let path = try write(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var query = FeatureQuery(whereClause: "val >= 0")
        query.returnCountOnly = true
        let answer = try await run(query, path: path)
        #expect(answer.features.isEmpty)
        #expect(answer.summary?.members["count"] == .int(Int64(data.filter { ($0.value ?? -1) >= 0 }.count)))
        #expect(answer.summary?.members["rows"] == .int(1500))
    }

    /// A value column that turns to text in the file's last line: the
    /// features written first already carry the whole file's type (text),
    /// as the whole-file answer does.
    @Test("a column that becomes text at the end is written as text from the first feature")
    func lateText() async throws {
        let data = rows(1500, seed: 15)
        let path = try write(data, extra: "1501,\"late\",n/a,1600001501000,0,0\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var query = FeatureQuery(whereClause: "id <= 3")
        query.outFields = ["id", "val"]
        let answer = try await run(query, path: path)
        #expect(answer.features.count == 3)
        #expect(answer.features.first?.attributes["val"]?.stringValue != nil)
        #expect(answer.features == (try whole(query, path: path)))
    }

    /// The coordinates of every record are read when the geometry is
    /// written, the records the where clause drops included: a coordinate
    /// that is no number fails the query with the whole-file loader's
    /// message and line. Without geometry nor coordinates asked for, the
    /// column is not read and the query answers.
    @Test("a bad coordinate in a dropped record fails when the geometry is written, not otherwise")
    func badCoordinate() async throws {
        let path = try write(rows(1500, seed: 16), extra: "1501,\"last\",5,1600001501000,0,north\n")
        defer { try? FileManager.default.removeItem(atPath: path) }

        let query = FeatureQuery(whereClause: "id <= 10")
        var loaderMessage = ""
        do { _ = try FeatureFile.load(path: path, options: load) } catch { loaderMessage = error.description }
        // The bad record is the file's last line (labels hold line breaks, so count them).
        let line = try String(contentsOfFile: path, encoding: .utf8).utf8.filter { $0 == 0x0A }.count
        #expect(loaderMessage.contains(":\(line): y column 'y': 'north' is not a number"), "\(loaderMessage)")
        var job = FileQueryJob(path: path, load: load, query: query)
        job.chunkSize = 750
        let harness = await AnalysisHarness(schema: Schema(fields: []))
        defer { Task { await harness.close() } }
        let events = try await harness.run(job, command: "query")
        #expect(events.last?.phase == .failed)
        #expect("\(events.last?.members ?? JSONObject())".contains(loaderMessage), "\(events.last?.members ?? JSONObject())")

        var unread = query
        unread.outFields = ["id", "val"]
        unread.returnGeometry = false
        let answer = try await run(unread, path: path)
        #expect(ids(answer.features) == Array(1...10))
    }
}
