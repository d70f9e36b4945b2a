import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// Writes `bytes` to a fresh temporary file and returns its path.
private func temporaryFile(_ bytes: [UInt8], suffix: String) throws -> String {
    try TestFiles.temporary(bytes, prefix: "jsonl-scan", suffix: suffix)
}

/// Every row of the file through the streamed scan, in order.
private func scanned(_ path: String, chunkSize: Int, options: FeatureLoadOptions = FeatureLoadOptions())
    async throws -> (rows: [PlainRow], scan: JSONLinesFileScan, chunks: Int) {
    let scan = try #require(try await JSONLinesFileScan.open(path: path, options: options, chunkSize: chunkSize))
    var rows: [PlainRow] = []
    var chunks = 0
    let outcome = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, workers: 2, process: plainRows) { rows.append(contentsOf: $0); chunks += 1 }
    #expect(outcome == .finished(rows: rows.count))
    return (rows, scan, chunks)
}

/// Names whose bytes put chunk boundaries inside JSON strings, escapes
/// and two-, three- and four-byte UTF-8 characters.
private let names = ["plain", "Zürich, \"CH\"", "日本語のテキスト", "emoji 🛰️🚢", "tab\tand\\slash", "line\nbreak", "Ærøskøbing"]

/// JSON text of `text` (escaped).
private func json(_ text: String) -> String { TestFiles.jsonString(text) }

/// One feature the test writes, and what every format must read of it.
private struct Written {
    var name: String
    var speed: Double
    var count: Int?
    var x: Double
    var y: Double
    /// Set only on late features: a field that first appears far into the file.
    var late: String?
}

private func features(_ count: Int) -> [Written] {
    (0..<count).map { (index: Int) -> Written in
        let x: Double = Double(index % 360) - 180
        let y: Double = Double(index % 170) / 2 - 40
        let late: String? = index >= count - 3 ? "late \(index)" : nil
        let number: Int? = index % 5 == 0 ? nil : index
        return Written(name: names[index % names.count], speed: Double(index) / 4, count: number, x: x, y: y, late: late)
    }
}

private func esriLine(_ feature: Written) -> String {
    var attributes = "\"name\":\(json(feature.name)),\"speed\":\(feature.speed),\"count\":\(feature.count.map(String.init) ?? "null")"
    if let late = feature.late { attributes += ",\"late\":\(json(late))" }
    return "{\"geometry\":{\"x\":\(feature.x),\"y\":\(feature.y),\"spatialReference\":{\"wkid\":4326}},\"attributes\":{\(attributes)}}"
}

private func geoJSONLine(_ feature: Written, id: Int?) -> String {
    var properties = "\"name\":\(json(feature.name)),\"speed\":\(feature.speed),\"count\":\(feature.count.map(String.init) ?? "null")"
    if let late = feature.late { properties += ",\"late\":\(json(late))" }
    return "{\"type\":\"Feature\",\(id.map { "\"id\":\($0)," } ?? "")\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(feature.x),\(feature.y)]},\"properties\":{\(properties)}}"
}

private let recordingHeader = #"{"recording":"entitystream","version":1,"service":"test","startedAt":1700000000000,"description":{"#
    + #""objectIdField":"oid","spatialReference":{"wkid":4326},"#
    + #""fields":[{"name":"oid","type":"esriFieldTypeOID"},{"name":"name","type":"esriFieldTypeString"},"#
    + #"{"name":"speed","type":"esriFieldTypeDouble"},{"name":"count","type":"esriFieldTypeInteger"}]}}"#

/// The file in each streamable format, with the test's expectations.
enum StreamableLineLayout: String, CaseIterable, CustomStringConvertible {
    case esriLines, geoJSONSeq, geoJSONRS, recording
    var description: String { rawValue }

    fileprivate func text(_ written: [Written]) -> String {
        switch self {
        case .esriLines:
            return "\u{FEFF}" + written.map(esriLine).joined(separator: "\r\n") + "\r\n"
        case .geoJSONSeq:
            return written.enumerated().map { geoJSONLine($1, id: $0 + 1) }.joined(separator: "\n") + "\n\n"
        case .geoJSONRS:
            // RFC 8142: each text starts with RS and ends with LF.
            return written.enumerated().map { "\u{1E}" + geoJSONLine($1, id: 2 * $0 + 10) + "\n" }.joined()
        case .recording:
            var lines = [recordingHeader]
            for (index, feature) in written.enumerated() {
                var attributes = "\"oid\":\(index + 1),\"name\":\(json(feature.name)),\"speed\":\(feature.speed),\"count\":\(feature.count.map(String.init) ?? "null")"
                if let late = feature.late { attributes += ",\"late\":\(json(late))" }
                let message = "{\"geometry\":{\"x\":\(feature.x),\"y\":\(feature.y)},\"attributes\":{\(attributes)}}"
                lines.append("{\"t\":\(index * 10),\"message\":\(message)}")
                if index == 5 { lines.append("{\"t\":\"soon\",\"message\":{}}") }   // malformed: skipped and counted
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

@Suite("Esri JSON lines, GeoJSON sequences and recordings streamed in chunks give the whole-file table", .bounded)
struct JSONLinesFileScanTests {
    /// Chunk sizes from one byte up put a read boundary at every offset:
    /// inside JSON strings and their escapes, inside every byte of two-,
    /// three- and four-byte UTF-8 characters, between CR and LF, after an
    /// RFC 8142 record separator. The rows must be the whole-file loader's
    /// and the values the test wrote.
    @Test("every format, every chunk size: the loader's rows and the written values",
          arguments: StreamableLineLayout.allCases, [1, 2, 3, 7, 64, 4096])
    func boundariesEverywhere(layout: StreamableLineLayout, chunkSize: Int) async throws {
        let written = features(40)
        let path = try temporaryFile(Array(layout.text(written).utf8), suffix: "jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try FeatureFile.load(path: path)
        let streamed = try await scanned(path, chunkSize: chunkSize)
        #expect(streamed.scan.schema == whole.schema)
        #expect(streamed.rows == plainRows(whole))
        #expect(streamed.scan.report.notes == whole.report.notes && streamed.scan.report.skipped == whole.report.skipped)
        if chunkSize <= 64 { #expect(streamed.chunks > 3) }

        // The values the test wrote (an oracle independent of the loader).
        let schema = streamed.scan.schema
        let name = try #require(schema.index(ofField: "name")), speed = try #require(schema.index(ofField: "speed"))
        let count = try #require(schema.index(ofField: "count")), late = try #require(schema.index(ofField: "late"))
        #expect(streamed.rows.count == written.count)
        for (row, feature) in zip(streamed.rows, written) {
            #expect(row.values[name] == .string(feature.name))
            #expect(row.values[speed] == .double(feature.speed))
            #expect(row.values[count] == (feature.count.map { .int(Int64($0)) } ?? .null))
            #expect(row.values[late] == (feature.late.map { .string($0) } ?? .null))
            #expect(row.x == feature.x && row.y == feature.y)
        }
        let ids = streamed.rows.map(\.objectID)
        switch layout {
        case .geoJSONRS: #expect(ids == written.indices.map { Int64(2 * $0 + 10) })
        default: #expect(ids == written.indices.map { Int64($0 + 1) })
        }
        if layout == .recording {
            #expect(streamed.scan.report.skippedCount == 1)
            #expect(streamed.scan.report.skipped.first?.firstLine == 8)
        }
    }

    /// A scan reads the file up to the size it had when opened (what the
    /// layout pass read), and its outcome counts the rows it delivered:
    /// lines appended later are not read (the same rows every scan), and a
    /// file cut short is an error naming it, never fewer rows.
    @Test("a file that grows after opening is read to its size at open; one cut short is an error naming it")
    func growingFile() async throws {
        let written = features(300)
        let lines = written.map { esriLine($0) + "\n" }
        let path = try temporaryFile(Array(lines.joined().utf8), suffix: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try await JSONLinesFileScan.open(path: path, chunkSize: 1024))
        let speed = try #require(scan.schema.index(ofField: "speed"))
        func pass() async throws -> (speeds: [AttributeValue], outcome: CSVFileScan.Outcome) {
            var rows: [PlainRow] = []
            let outcome = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, workers: 2, process: plainRows) { rows.append(contentsOf: $0) }
            return (rows.map { $0.values[speed] }, outcome)
        }
        let speeds = written.map { AttributeValue.double($0.speed) }
        let first = try await pass()
        #expect(first.speeds == speeds && first.outcome == .finished(rows: 300))

        let more = features(400).suffix(100).map { esriLine($0) + "\n" }.joined()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(more.utf8))
        try handle.close()
        let second = try await pass()
        #expect(second.speeds == speeds && second.outcome == .finished(rows: 300))

        // Cut to the first 120 lines: the scan planned at the size at open fails, naming the file and both sizes.
        let cut = lines.prefix(120).joined().utf8.count
        #expect(truncate(path, off_t(cut)) == 0)
        let error = await #expect(throws: FeatureLoadError(file: path, .shrank(size: cut, expected: lines.joined().utf8.count))) { _ = try await pass() }
        #expect(error?.description.hasPrefix("\(path): the file shrank to \(cut) bytes") == true)
    }

    /// A file cut while a scan reads it (after its first chunk was delivered, with the reader at most
    /// a few chunks ahead) ends the scan with the error naming the file, not with the rows read so far.
    @Test("a file cut while a scan reads it is an error naming it")
    func fileCutDuringTheScan() async throws {
        let lines = features(600).map { esriLine($0) + "\n" }
        let bytes = Array(lines.joined().utf8)
        let path = try temporaryFile(bytes, suffix: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try await JSONLinesFileScan.open(path: path, chunkSize: 1024))
        let cut = lines.prefix(300).joined().utf8.count   // at a line's end: the rows before it parse
        var delivered = 0
        let error = await #expect(throws: FeatureLoadError(file: path, .shrank(size: cut, expected: bytes.count))) {
            _ = try await scan.scan(neededFields: nil, filter: nil, readsGeometry: true, workers: 2, process: plainRows) { rows in
                if delivered == 0 { #expect(truncate(path, off_t(cut)) == 0) }
                delivered += rows.count
            }
        }
        #expect(error != nil && delivered < 600)
    }

    /// A field that is an integer for most of the file and a decimal at its
    /// end is read as a double from the first chunk on, as the whole load reads it.
    @Test("a type that widens in the last chunk types every chunk")
    func lateWidening() async throws {
        var text = ""
        for index in 0..<500 { text += "{\"attributes\":{\"v\":\(index)}}\n" }
        text += "{\"attributes\":{\"v\":0.5}}\n"
        let path = try temporaryFile(Array(text.utf8), suffix: "jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = try await scanned(path, chunkSize: 256)
        let field = try #require(streamed.scan.schema.index(ofField: "v"))
        #expect(streamed.scan.schema.fields[field].type == .double)
        #expect(streamed.rows.first?.values[field] == .double(0))
        #expect(streamed.rows.last?.values[field] == .double(0.5))
        #expect(streamed.rows == plainRows(try FeatureFile.load(path: path)))
    }

    /// A bad record far into the file is named by its line in the file, in
    /// the first pass (a broken JSON text) and the second (a value its
    /// field's type cannot hold is found only once the types are known).
    @Test("bad records are named by their line in the file")
    func badRecordLines() async throws {
        var text = ""
        for index in 0..<300 { text += "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"n\":\(index)}}\n" }
        let broken = text + "{\"type\":\"Feature\",\"properties\":{\"n\":\n"
        let path = try temporaryFile(Array(broken.utf8), suffix: "geojsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        await #expect { _ = try await JSONLinesFileScan.open(path: path, chunkSize: 512) } throws: { error in
            (error as? FeatureLoadError)?.line == 301
        }
        let case2 = text.replacingOccurrences(of: "\"properties\":{\"n\":250}", with: "\"properties\":{\"N\":250}")
        let path2 = try temporaryFile(Array(case2.utf8), suffix: "geojsonl")
        defer { try? FileManager.default.removeItem(atPath: path2) }
        await #expect { _ = try await JSONLinesFileScan.open(path: path2, chunkSize: 512) } throws: { error in
            guard let error = error as? FeatureLoadError else { return false }
            return error.line == 251 && error.reason == .propertiesDifferInCase("n", "N")
        }
    }

    /// GeoJSON ids become object ids only when unique; a repeat in another
    /// chunk keeps them in an `id` field, as the whole load does.
    @Test("a GeoJSON id repeated in a later chunk is not an object id")
    func repeatedIDAcrossChunks() async throws {
        var text = ""
        for index in 0..<200 { text += "{\"type\":\"Feature\",\"id\":\(index == 199 ? 3 : index + 1),\"geometry\":null,\"properties\":{\"n\":\(index)}}\n" }
        let path = try temporaryFile(Array(text.utf8), suffix: "geojsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = try await scanned(path, chunkSize: 300)
        let whole = try FeatureFile.load(path: path)
        #expect(whole.schema.index(ofField: "id") != nil)
        #expect(streamed.scan.schema == whole.schema)
        #expect(streamed.rows == plainRows(whole))
    }

    /// CSV and the one-document formats are not this scan's.
    @Test("other formats are not streamed here")
    func otherFormats() async throws {
        for text in ["a,b\n1,2\n", "[{\"attributes\":{\"a\":1}}]", "{\"type\":\"FeatureCollection\",\"features\":[]}"] {
            let path = try temporaryFile(Array(text.utf8), suffix: "txt")
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try await JSONLinesFileScan.open(path: path) == nil)
        }
    }

    /// A one-document file over the limit is refused before it is read,
    /// naming the file, its size, the limit and the format to use instead;
    /// line formats of the same size are not.
    @Test("a JSON document over the size limit is refused with what to do instead")
    func documentOverLimit() throws {
        let features = (0..<200).map { "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"n\":\($0)}}" }
        let collection = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}"
        let path = try temporaryFile(Array(collection.utf8), suffix: "geojson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = collection.utf8.count
        let options = FeatureLoadOptions(maximumDocumentSize: size - 1)
        #expect { _ = try FeatureFile.load(path: path, options: options) } throws: { error in
            let text = "\(error)"
            return text.contains(path) && text.contains("\(size) bytes") && text.contains("GeoJSON sequence")
        }
        #expect(try FeatureFile.load(path: path, options: FeatureLoadOptions(maximumDocumentSize: size)).count == 200)
        let array = "[" + (0..<200).map { "{\"attributes\":{\"n\":\($0)}}" }.joined(separator: ",") + "]"
        let arrayPath = try temporaryFile(Array(array.utf8), suffix: "json")
        defer { try? FileManager.default.removeItem(atPath: arrayPath) }
        #expect { _ = try FeatureFile.load(path: arrayPath, options: FeatureLoadOptions(maximumDocumentSize: 100)) } throws: { error in
            "\(error)".contains("Esri JSON lines")
        }
        let lines = features.joined(separator: "\n")
        let linesPath = try temporaryFile(Array(lines.utf8), suffix: "geojsonl")
        defer { try? FileManager.default.removeItem(atPath: linesPath) }
        #expect(try FeatureFile.load(path: linesPath, options: FeatureLoadOptions(maximumDocumentSize: 100)).count == 200)
    }

    /// A filtered scan, as a CSV scan: each table holds only the rows the
    /// filter passes, each with its object id in the file (assigned ids
    /// numbered on across chunks, given ones kept), and only the fields read
    /// (the filter's, the ones asked for, the object id) are converted,
    /// the others null. A filter on assigned object ids sees the ids the
    /// rows have in the file. The oracle is what the test wrote.
    @Test("a filtered scan keeps only the passing rows, numbered as in the file, with only the fields read",
          arguments: StreamableLineLayout.allCases)
    func filteredScan(layout: StreamableLineLayout) async throws {
        let written = features(300)
        let path = try temporaryFile(Array(layout.text(written).utf8), suffix: "jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try await JSONLinesFileScan.open(path: path, chunkSize: 512))
        let schema = scan.schema
        let speed = try #require(schema.index(ofField: "speed")), name = try #require(schema.index(ofField: "name"))
        let oid = try #require(schema.fields.firstIndex { $0.type == .objectID })
        let ids: [Int64] = written.indices.map { layout == .geoJSONRS ? Int64(2 * $0 + 10) : Int64($0 + 1) }

        func filtered(_ whereClause: String) async throws -> (rows: [PlainRow], chunks: Int) {
            let filter = try FeatureQueryEngine(maxRecordCount: Int.max).rowFilter(FeatureQuery(whereClause: whereClause), on: try scan.emptyTable())
            var rows: [PlainRow] = []
            var chunks = 0
            _ = try await scan.scan(neededFields: [speed], filter: filter, readsGeometry: true, workers: 2, process: plainRows) {
                rows.append(contentsOf: $0)
                chunks += 1
            }
            return (rows, chunks)
        }

        let bySpeed = try await filtered("speed >= 20 AND speed < 60")
        let expected = written.indices.filter { written[$0].speed >= 20 && written[$0].speed < 60 }
        #expect(bySpeed.chunks > 10)
        #expect(bySpeed.rows.map(\.objectID) == expected.map { ids[$0] })
        #expect(bySpeed.rows.map { $0.values[speed] } == expected.map { .double(written[$0].speed) })
        #expect(bySpeed.rows.allSatisfy { $0.values[name] == .null })
        #expect(bySpeed.rows.map(\.x) == expected.map { written[$0].x })

        let oidName = schema.fields[oid].name
        let byID = try await filtered("\(oidName) > 100 AND \(oidName) <= 130")
        #expect(byID.rows.map(\.objectID) == ids.filter { $0 > 100 && $0 <= 130 })
    }
}
