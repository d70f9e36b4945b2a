@testable import StreamSimulator
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamStatistics
import EntityStreamLocking
import EntityStreamTransport

/// A CSV the test writes: `seq` 1…rows, `grp` (quoted text with a comma,
/// 9 groups), `speed` = seq × 7 mod 23, `when` one minute apart from
/// 2000-09-01, `lon`/`lat` on a grid; with `scrambledIDs`, an `oid` column
/// whose ids run in another order than the file's.
private func layerFile(rows: Int, scrambledIDs: Bool = false) throws -> String {
    var text = (scrambledIDs ? "oid," : "") + "seq,grp,speed,when,lon,lat\n"
    for seq in 1...rows {
        let minutes = seq - 1
        let when = String(format: "2000-09-%02dT%02d:%02d:00Z", 1 + minutes / 1440, minutes / 60 % 24, minutes % 60)
        let oid = scrambledIDs ? "\((seq * 7919) % 100_003)," : ""
        text += "\(oid)\(seq),\"g\(seq % 9), \(seq % 2 == 0 ? "even" : "odd")\",\(seq * 7 % 23),\(when),\(-80.0 + Double(seq % 37) * 0.1),\(20.0 + Double(seq % 41) * 0.1)\n"
    }
    return try TestFiles.temporary(Array(text.utf8), prefix: "streamed-layer", suffix: "csv")
}

/// The same file served loaded (today's layer: the oracle) and streamed in small chunks.
private func bothLayers(_ path: String, scrambledIDs: Bool = false, maximumRows: Int = 1_000_000) async throws
    -> (loaded: SimulatedLayer, streamed: StreamedFileLayer) {
    var options = FeatureLoadOptions()
    if scrambledIDs { options.mapping.objectID = "oid" }
    let specification = LayerSpecification(name: "Points", path: path, options: options)
    let loaded = try SimulatedLayer.load(specification, maxRecordCount: 500, supportsPagination: true, statistics: TableStatisticsEngine())
    let streamed = try #require(try await StreamedFileLayer.open(specification, maxRecordCount: 500, supportsPagination: true,
                                                                statistics: TableStatisticsEngine(), maximumRows: maximumRows, chunkSize: 2048))
    return (loaded, streamed)
}

private func parameters(_ text: String) -> [(name: String, value: String)] {
    text.split(separator: "&").map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        return (parts[0], (parts.count > 1 ? parts[1] : "").removingPercentEncoding ?? "")
    }
}

/// The `attributes` of each feature of a query answer.
private func attributes(_ body: [UInt8]) -> [[String: Any]] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
          let features = object["features"] as? [[String: Any]] else { return [] }
    return features.compactMap { $0["attributes"] as? [String: Any] }
}

@Suite("Layers read from a file for each query answer as the loaded layer, in bounded memory", .bounded(.io))
struct StreamedFileLayerTests {
    static let queries = [
        "where=speed%20%3E%205&returnCountOnly=true&f=json",
        "where=1%3D1&returnExtentOnly=true&returnCountOnly=true&f=json",
        "where=speed%20%3C%203&returnExtentOnly=true&outSR=3857&f=json",
        "time=967766400000,967939200000&returnCountOnly=true&f=json",
        "outStatistics=%5B%7B%22statisticType%22:%22count%22,%22onStatisticField%22:%22speed%22,%22outStatisticFieldName%22:%22n%22%7D,%7B%22statisticType%22:%22avg%22,%22onStatisticField%22:%22speed%22,%22outStatisticFieldName%22:%22mean%22%7D,%7B%22statisticType%22:%22stddev%22,%22onStatisticField%22:%22speed%22,%22outStatisticFieldName%22:%22sd%22%7D,%7B%22statisticType%22:%22max%22,%22onStatisticField%22:%22seq%22,%22outStatisticFieldName%22:%22last%22%7D%5D&groupByFieldsForStatistics=grp&orderByFields=grp&resultOffset=2&resultRecordCount=5&where=speed%3E1&f=json",
        "outStatistics=%5B%7B%22statisticType%22:%22sum%22,%22onStatisticField%22:%22speed%22,%22outStatisticFieldName%22:%22total%22%7D%5D&groupByFieldsForStatistics=grp&havingClause=SUM(speed)%20%3E%201840&f=json",
        "returnDistinctValues=true&outFields=grp&orderByFields=grp%20DESC&f=json",
        "where=speed%3E3&outFields=*&f=json",
        "outFields=seq,speed&resultOffset=1234&resultRecordCount=100&f=json",
        "outFields=*&resultOffset=2990&resultRecordCount=100&f=json",
        "outFields=*&resultOffset=3500&f=json",
        "outFields=*&orderByFields=speed%20DESC,grp&resultOffset=37&resultRecordCount=50&f=json",
        "returnIdsOnly=true&where=speed%3D3&f=json",
        "returnIdsOnly=true&where=speed%3E20&orderByFields=speed%20DESC&f=json",
        "objectIds=5,1500,2999&outFields=*&f=json",
        "where=speed%3C2&returnQueryExtent=true&resultRecordCount=10&outFields=seq&f=json",
        "where=grp%20LIKE%20%27g3%25%27&resultRecordCount=20&outFields=*&f=geojson",
        "geometry=-79.5,20.5,-78,22&geometryType=esriGeometryEnvelope&inSR=4326&outFields=seq&orderByFields=seq%20DESC&f=json",
        "where=nosuch%3E1&f=json",
        "orderByFields=nosuch&f=json",
        "time=967766400000,967939200000&outFields=seq,when&resultRecordCount=30&resultOffset=60&outSR=3857&f=json",
    ]

    /// Counts, extents, statistics, distinct values, pages in object-id
    /// order and by orderByFields, ids, object ids, query extents, GeoJSON,
    /// envelopes, time and bad parameters: each answer is byte for byte the
    /// loaded layer's, over a file read in 2 KiB chunks (about 65); so is the description.
    @Test func answersEqualTheLoadedLayers() async throws {
        let path = try layerFile(rows: 3000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (loaded, streamed) = try await bothLayers(path)
        #expect(streamed.index.rows == 3000)
        #expect(streamed.description.json() == loaded.description.json())
        #expect(streamed.description.extent == loaded.table.extent && streamed.description.extent != nil)
        for query in Self.queries {
            let expected = await LayerRouter.query(source: loaded, parameters: parameters(query))
            let answered = await LayerRouter.query(source: streamed, parameters: parameters(query))
            #expect(answered.status == expected.status, "\(query)")
            #expect(answered.body == expected.body, "\(query): \(String(decoding: answered.body.prefix(300), as: UTF8.self))")
        }
        // The oracle is not vacuous: a few answers checked against the rows the test wrote.
        let count = await LayerRouter.query(source: streamed, parameters: parameters(Self.queries[0]))
        let expectedCount = (1...3000).filter { $0 * 7 % 23 > 5 }.count
        #expect(String(decoding: count.body, as: UTF8.self) == "{\"count\":\(expectedCount)}")
        let middle = await LayerRouter.query(source: streamed, parameters: parameters(Self.queries[8]))
        #expect(attributes(middle.body).compactMap { $0["seq"] as? Int } == Array(1235...1334))
    }

    /// A CSV whose `speed` is an integer in the first chunks and a decimal
    /// near its end, and whose `code` turns to text in its last rows: start-up
    /// reads the file once (the index pass settles every column's type), and
    /// the layer's fields, counts and statistics are the loaded layer's.
    @Test func oneReadAtStartUpSettlesEveryColumn() async throws {
        var text = "seq,speed,code,lon,lat\n"
        for seq in 1...3000 {
            let speed = seq == 2900 ? "2.5" : "\(seq % 17)"
            let code = seq > 2950 ? "x\(seq)" : "\(seq * 3)"
            text += "\(seq),\(speed),\(code),\(-80.0 + Double(seq % 37) * 0.1),\(20.0 + Double(seq % 41) * 0.1)\n"
        }
        let path = try TestFiles.temporary(Array(text.utf8), prefix: "streamed-layer-types", suffix: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (loaded, streamed) = try await bothLayers(path)
        #expect(streamed.scan.position.passesStarted == 1)
        #expect(streamed.index.rows == 3000 && streamed.report.rows == 3000)
        let fields = streamed.scan.schema.fields
        #expect(fields.first { $0.name == "speed" }?.type == .double && fields.first { $0.name == "code" }?.type == .string)
        #expect(streamed.description.json() == loaded.description.json())
        for query in ["where=speed%20%3E%202.4%20AND%20speed%20%3C%202.6&outFields=seq,speed,code&f=json",
                      "outStatistics=%5B%7B%22statisticType%22:%22sum%22,%22onStatisticField%22:%22speed%22,%22outStatisticFieldName%22:%22s%22%7D%5D&f=json",
                      "where=code%20%3D%20%27x2999%27&outFields=*&f=json"] {
            let expected = await LayerRouter.query(source: loaded, parameters: parameters(query))
            let answered = await LayerRouter.query(source: streamed, parameters: parameters(query))
            #expect(answered.body == expected.body, "\(query): \(String(decoding: answered.body.prefix(300), as: UTF8.self))")
        }
        // The rows the test wrote: one speed of 2.5, and the sum of the speeds.
        let one = await LayerRouter.query(source: streamed, parameters: parameters("where=speed%20%3D%202.5&outFields=seq&f=json"))
        #expect(attributes(one.body).compactMap { $0["seq"] as? Int } == [2900])
    }

    /// Esri JSON lines the test writes: `seq` 1…rows, `speed`, `when` (epoch ms, one minute apart from
    /// 2000-09-01, or `whenOf(seq)` for the rows it gives), points on a grid in 4326 (`wkidOf(seq)` for others).
    private func jsonLinesFile(rows: Int, whenOf: (Int) -> String? = { _ in nil }, wkidOf: (Int) -> Int = { _ in 4326 }) throws -> String {
        var text = ""
        for seq in 1...rows {
            let when = whenOf(seq) ?? "\(967_766_400_000 + Int64(seq - 1) * 60_000)"
            let (x, y) = (-80.0 + Double(seq % 37) * 0.1, 20.0 + Double(seq % 41) * 0.1)
            text += #"{"geometry":{"x":\#(x),"y":\#(y),"spatialReference":{"wkid":\#(wkidOf(seq))}},"attributes":{"seq":\#(seq),"speed":\#(Double(seq * 7 % 23) / 2),"when":\#(when)}}"# + "\n"
        }
        return try TestFiles.temporary(Array(text.utf8), prefix: "streamed-layer", suffix: "json")
    }

    /// Esri JSON lines are read once at start-up: the pass that settles their layout also gives the
    /// layer's row count, extent and time extent, equal to the loaded layer's; when that pass cannot
    /// tell them exactly (a point in another reference, to be converted), the rows are read once more,
    /// and a time value that is no date is refused as the loaded layer refuses it.
    @Test func jsonLinesAreReadOnceAtStartUp() async throws {
        var options = FeatureLoadOptions()
        options.mapping.time = "when"
        let dated = try jsonLinesFile(rows: 3000, whenOf: { $0 == 1234 ? #""2000-08-01T00:00:00Z""# : nil })
        let moved = try jsonLinesFile(rows: 3000, wkidOf: { $0 == 2999 ? 3857 : 4326 })
        let undated = try jsonLinesFile(rows: 3000, whenOf: { $0 == 2500 ? #""soon""# : nil })
        defer { for path in [dated, moved, undated] { try? FileManager.default.removeItem(atPath: path) } }
        for (path, passes) in [(dated, 0), (moved, 1)] {
            let specification = LayerSpecification(name: "Points", path: path, options: options)
            let loaded = try SimulatedLayer.load(specification, maxRecordCount: 500, supportsPagination: true, statistics: TableStatisticsEngine())
            let streamed = try #require(try await StreamedFileLayer.open(specification, maxRecordCount: 500, supportsPagination: true,
                                                                        statistics: TableStatisticsEngine(), chunkSize: 4096))
            #expect(streamed.scan.position.passesStarted == passes, "\(path)")
            #expect(streamed.index.rows == 3000 && streamed.description.json() == loaded.description.json(), "\(path)")
            for query in ["where=1%3D1&returnExtentOnly=true&returnCountOnly=true&f=json", "outFields=seq,when&resultOffset=1230&resultRecordCount=10&f=json"] {
                let expected = await LayerRouter.query(source: loaded, parameters: parameters(query))
                let answered = await LayerRouter.query(source: streamed, parameters: parameters(query))
                #expect(answered.body == expected.body, "\(query)")
            }
        }
        // The values the test wrote: the time extent runs from the one text date to the last row's minute.
        let specification = LayerSpecification(name: "Points", path: dated, options: options)
        let streamed = try #require(try await StreamedFileLayer.open(specification, maxRecordCount: 500, supportsPagination: true,
                                                                    statistics: TableStatisticsEngine(), chunkSize: 4096))
        #expect(streamed.index.timeExtent == (try TimeExtent(start: 965_088_000_000, end: 967_766_400_000 + 2999 * 60_000)))
        #expect(streamed.index.extent == Envelope(xmin: -80, ymin: 20, xmax: -80.0 + Double(36) * 0.1, ymax: 20.0 + Double(40) * 0.1, wkid: 4326))

        let refused = LayerSpecification(name: "Points", path: undated, options: options)
        #expect(throws: (any Error).self) { try SimulatedLayer.load(refused, maxRecordCount: 500, supportsPagination: true, statistics: nil) }
        await #expect(throws: SimulatorError.self) {
            _ = try await StreamedFileLayer.open(refused, maxRecordCount: 500, supportsPagination: true, statistics: nil, chunkSize: 4096)
        }
    }

    /// A file with its own object ids, in another order than the file's:
    /// pages (ordered by id, or by a field) keep a running top-k, and still
    /// answer as the loaded layer.
    @Test func ownObjectIDsAnswerAsTheLoadedLayer() async throws {
        let path = try layerFile(rows: 1500, scrambledIDs: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (loaded, streamed) = try await bothLayers(path, scrambledIDs: true)
        for query in ["outFields=*&resultOffset=100&resultRecordCount=40&f=json", "outFields=seq&orderByFields=speed,seq%20DESC&resultOffset=7&resultRecordCount=9&f=json",
                      "returnIdsOnly=true&where=speed%3E11&f=json", "objectIds=7919,15838&outFields=*&f=json", "outFields=oid&f=json"] {
            let expected = await LayerRouter.query(source: loaded, parameters: parameters(query))
            let answered = await LayerRouter.query(source: streamed, parameters: parameters(query))
            #expect(answered.status == 200 && answered.body == expected.body, "\(query)")
        }
        #expect(streamed.peakRowsKept <= 100 + 500 + 1)
    }

    /// Paging through the whole layer gives every row once, in order, with
    /// `exceededTransferLimit` on every page but the last; a page keeps at
    /// most its own rows and one more, and an early page stops reading the file.
    @Test func pagesAreCompleteOrderedAndBounded() async throws {
        let rows = 3000
        let path = try layerFile(rows: rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, streamed) = try await bothLayers(path)
        var seen: [Int] = []
        var offset = 0
        while true {
            let page = await LayerRouter.query(source: streamed, parameters: parameters("outFields=seq&resultOffset=\(offset)&resultRecordCount=700&f=json"))
            #expect(page.status == 200)
            let values = attributes(page.body).compactMap { $0["seq"] as? Int }
            seen += values
            offset += values.count
            let exceeded = String(decoding: page.body, as: UTF8.self).contains("\"exceededTransferLimit\":true")
            #expect(exceeded == (offset < rows), "at \(offset)")
            if !exceeded || values.isEmpty { break }
        }
        #expect(seen == Array(1...rows))
        #expect(streamed.peakRowsKept == 501)   // a page is at most maxRecordCount (500) rows: those and one more
        // The first page reads only the start of the file: about 50 rows a chunk, a few chunks.
        _ = await LayerRouter.query(source: streamed, parameters: parameters("outFields=seq&resultRecordCount=100&f=json"))
        #expect(streamed.scan.position.rowsDelivered < rows / 10)
        // Counting reads every row, holding none.
        _ = await LayerRouter.query(source: streamed, parameters: parameters("returnCountOnly=true&f=json"))
        #expect(streamed.scan.position.rowsDelivered == rows)
        #expect(streamed.peakRowsKept == 501)
    }

    /// An ordered answer that would keep more rows than the bound is refused
    /// (400 naming the parameter), not held.
    @Test func orderedAnswersBeyondTheBoundAreRefused() async throws {
        let path = try layerFile(rows: 2000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, streamed) = try await bothLayers(path, maximumRows: 300)
        let deep = await LayerRouter.query(source: streamed, parameters: parameters("outFields=*&orderByFields=speed&resultOffset=250&resultRecordCount=100&f=json"))
        #expect(deep.status == 400 && String(decoding: deep.body, as: UTF8.self).contains("resultOffset"))
        let ids = await LayerRouter.query(source: streamed, parameters: parameters("returnIdsOnly=true&orderByFields=speed&f=json"))
        #expect(ids.status == 400 && String(decoding: ids.body, as: UTF8.self).contains("orderByFields"))
        // In object-id order the same depth is fine: only the page is kept.
        let plain = await LayerRouter.query(source: streamed, parameters: parameters("outFields=seq&resultOffset=1900&resultRecordCount=100&f=json"))
        #expect(attributes(plain.body).compactMap { $0["seq"] as? Int } == Array(1901...2000))
        #expect(streamed.peakRowsKept <= 300 + 1)
    }

    /// A layer file cut shorter than it was at start-up answers no query with fewer rows: each query
    /// fails naming the file (HTTP 500), is counted and logged with the count; a file that grew is
    /// answered to its size at start-up (the rows indexed).
    @Test func aFileCutAfterStartUpFailsItsQueriesCounted() async throws {
        let path = try layerFile(rows: 2000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let logged = LockedState<[String]>([])
        let streamed = try #require(try await StreamedFileLayer.open(LayerSpecification(name: "Points", path: path), maxRecordCount: 500,
                                                                    supportsPagination: true, statistics: TableStatisticsEngine(), chunkSize: 2048,
                                                                    log: { line in logged.withLock { $0.append(line) } }))
        let count = "where=1%3D1&returnCountOnly=true&f=json"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("2001,\"g0, odd\",1,2000-09-02T09:20:00Z,-80,20\n".utf8))
        try handle.close()
        let grown = await LayerRouter.query(source: streamed, parameters: parameters(count))
        #expect(String(decoding: grown.body, as: UTF8.self) == #"{"count":2000}"#)
        #expect(streamed.shrunkReads == 0 && logged.withLock { $0 }.isEmpty)

        #expect(truncate(path, off_t(size / 2)) == 0)
        for (query, expected) in [(count, 1), ("outFields=seq&resultOffset=1500&f=json", 2)] {
            let answer = await LayerRouter.query(source: streamed, parameters: parameters(query))
            let body = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 500 && body.contains("the file shrank to \(size / 2) bytes"), "\(body)")
            #expect(streamed.shrunkReads == expected)
        }
        let lines = logged.withLock { $0 }
        #expect(lines.count == 2 && lines[0].hasPrefix("layer Points: query failed: \(path): the file shrank to \(size / 2) bytes"))
        #expect(lines[0].hasSuffix("(1 query so far)") && lines[1].hasSuffix("(2 queries so far)"))
    }

    /// The simulator streams a layer file over `layerStreamingThreshold`
    /// (here 0) and serves it over HTTP; a file at or under it is loaded as before.
    @Test func theServerStreamsFilesOverTheThreshold() async throws {
        let path = try layerFile(rows: 1000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logged = LockedState<[String]>([])
        let server = try await startLayers([LayerSpecification(name: "Big", path: path)]) { configuration in
            configuration.layerStreamingThreshold = 0
            configuration.log = { line in logged.withLock { $0.append(line) } }
        }
        #expect(logged.withLock { $0 }.contains { $0.contains("layer Big: 1000 features from") && $0.contains("read for each query, not held") })
        let count = try await HTTPClient().get(server.layerURL("Big") + "/query?where=speed%3D0&returnCountOnly=true&f=json")
        #expect(String(decoding: count.body, as: UTF8.self) == "{\"count\":\((1...1000).filter { $0 * 7 % 23 == 0 }.count)}")
        await server.shutdown()
        let small = LockedState<[String]>([])
        let loaded = try await startLayers([LayerSpecification(name: "Small", path: path)]) { configuration in
            configuration.log = { line in small.withLock { $0.append(line) } }
        }
        await loaded.shutdown()
        #expect(small.withLock { $0 }.contains { $0.contains("layer Small: 1000 features from") && !$0.contains("not held") })
    }
}
