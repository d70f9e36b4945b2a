import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// Writes `bytes` to a fresh temporary file and returns its path.
private func temporaryCSV(_ bytes: [UInt8]) throws -> String {
    try TestFiles.temporary(bytes, prefix: "scan", suffix: "csv")
}

/// Every row of the file through the streamed scan, in order, and the outcome.
private func scanned(_ path: String, chunkSize: Int, options: FeatureLoadOptions = FeatureLoadOptions(),
                     needed: Set<Int>? = nil) async throws -> (rows: [PlainRow], schema: Schema, outcome: CSVFileScan.Outcome, chunks: Int) {
    let scan = try #require(try CSVFileScan.open(path: path, options: options, chunkSize: chunkSize))
    var rows: [PlainRow] = []
    var chunks = 0
    var outcome = try await scan.scan(neededFields: needed, process: plainRows) { rows.append(contentsOf: $0); chunks += 1 }
    if outcome == .layoutChanged {
        rows = []
        chunks = 0
        outcome = try await scan.scan(neededFields: needed, process: plainRows) { rows.append(contentsOf: $0); chunks += 1 }
    }
    return (rows, scan.schema, outcome, chunks)
}

/// The text the boundary tests read: a BOM, quoted fields holding commas,
/// doubled quotes, LF and CRLF line breaks, two-, three- and four-byte UTF-8
/// characters, CRLF and lone-CR record ends, blank lines, an empty quoted
/// field, a null, and a time column.
private let trickyCSV: [UInt8] = Array("\u{FEFF}name,lon,lat,when,n,note\r\n".utf8)
    + Array("plain,1.5,2.25,2024-01-02T03:04:05Z,1,simple\r\n".utf8)
    + Array("\"comma, inside\",-3,4,2024-01-02 03:04:06,2,\"line\nbreak\"\n".utf8)
    + Array("\"quote \"\"here\"\"\",5,-6.5,,3,\"crlf\r\ninside, and \"\"more\"\"\"\r".utf8)
    + Array("Zürich café,7,8,2024-01-03T00:00:00Z,4,日本語のテキスト\n\n".utf8)
    + Array("emoji 🛰️🚢,9,10,2024-01-04T00:00:00Z,,\"\"\n".utf8)
    + Array("\"Ærøskøbing\",,,2024-01-05T00:00:00Z,6,\"🧭,\r\n\"\n".utf8)
    + Array("last,11,12,2024-01-06T00:00:00Z,7,no line end".utf8)

@Suite("CSV files streamed in chunks give the whole-file table", .bounded)
struct CSVFileScanTests {
    /// Every chunk size from one byte up puts a read boundary at every
    /// offset: inside quoted fields, inside doubled quotes, between CR and
    /// LF, inside multi-byte UTF-8 characters. The rows must be exactly the
    /// whole-file loader's, in order, object ids numbered on across chunks.
    @Test("every chunk size, every boundary: the loader's rows", arguments: [1, 2, 3, 5, 7, 11, 16, 64, 4096])
    func boundariesEverywhere(chunkSize: Int) async throws {
        let path = try temporaryCSV(trickyCSV)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = FeatureLoadOptions(mapping: FeatureColumnMapping(time: "when"))
        let whole = try FeatureFile.load(path: path, options: options)
        #expect(whole.count == 7)
        let streamed = try await scanned(path, chunkSize: chunkSize, options: options)
        #expect(streamed.outcome == .finished(rows: 7))
        #expect(streamed.schema == whole.schema)
        // The header as the test wrote it: the BOM is dropped whole, not one byte of it kept on the first name.
        for name in ["name", "when", "n", "note"] {
            let field = try #require(streamed.schema.index(ofField: name).map { streamed.schema.fields[$0] }, "no field \(name)")
            #expect((field.alias ?? field.name) == name)
        }
        #expect(streamed.rows == plainRows(whole))
        if chunkSize <= 16 { #expect(streamed.chunks > 3) }
    }

    /// Random files (seeded): quoted multi-line text with UTF-8 in every
    /// row, read with a prime chunk size, against the loader and against
    /// the values the test wrote.
    @Test("random quoted UTF-8 files: the loader's rows and the written values", arguments: [UInt64(1), 2, 3])
    func randomFiles(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "é", "日", "🚢", ",", "\"", "\n", "\r\n", " ", "z"]
        var text = "id,label,v\n"
        var written: [(Int64, String, Int64)] = []
        for id in 1...500 {
            var label = ""
            for _ in 0..<random.next(below: 12) { label += pieces[random.next(below: pieces.count)] }
            let value = Int64(random.next(below: 2000)) - 1000
            written.append((Int64(id), label, value))
            text += "\(id),\"\(label.replacingOccurrences(of: "\"", with: "\"\""))\",\(value)\n"
        }
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try FeatureFile.load(path: path)
        let streamed = try await scanned(path, chunkSize: 97)
        #expect(streamed.rows == plainRows(whole))
        #expect(streamed.chunks > 10)
        let expected = written.map { [AttributeValue.int($0.0), $0.1.isEmpty ? .string("") : .string($0.1), .int($0.2)] }
        #expect(streamed.rows.map { Array($0.values.suffix(3)) } == expected)
    }

    /// Columns the caller does not read stay null; those it reads keep their values.
    /// A file with no id column gets object ids 1, 2, … in file order; a
    /// where clause on them sees those ids in every chunk (they exist only
    /// once the rows of the chunks before are counted), as the whole-file
    /// loader's table does. The oracle is the row numbers the test wrote.
    @Test("a filter on assigned object ids keeps the rows with those ids", arguments: [7, 64, 4096])
    func filterOnAssignedObjectIDs(chunkSize: Int) async throws {
        let text = "n,v\n" + (1...200).map { "\($0),\($0 * 3)" }.joined(separator: "\n") + "\n"
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: chunkSize))
        let oid = try #require(scan.schema.fields.firstIndex { $0.type == .objectID })
        let n = try #require(scan.schema.index(ofField: "n"))
        let clause = "\(scan.schema.fields[oid].name) > 40 AND \(scan.schema.fields[oid].name) <= 55"
        let filter = try FeatureQueryEngine(maxRecordCount: Int.max).rowFilter(FeatureQuery(whereClause: clause), on: try scan.emptyTable())
        var rows: [PlainRow] = []
        if try await scan.scan(neededFields: [n], filter: filter, process: plainRows, consume: { rows.append(contentsOf: $0) }) == .layoutChanged {
            rows = []
            _ = try await scan.scan(neededFields: [n], filter: filter, process: plainRows) { rows.append(contentsOf: $0) }
        }
        let expected = Array(41...55)
        #expect(rows.map(\.objectID) == expected.map(Int64.init))
        #expect(rows.map { $0.values[n] } == expected.map { .int(Int64($0)) })
    }

    @Test("unread columns are null, read ones intact")
    func neededColumns() async throws {
        let path = try temporaryCSV(Array("a,b,c\n1,x,2.5\n3,y,4.5\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try FeatureFile.load(path: path)
        let c = try #require(whole.schema.index(ofField: "c"))
        let streamed = try await scanned(path, chunkSize: 4, needed: [c])
        #expect(streamed.rows.map { $0.values[c] } == [.double(2.5), .double(4.5)])
        let b = try #require(whole.schema.index(ofField: "b"))
        #expect(streamed.rows.allSatisfy { $0.values[b] == .null })
    }

    /// A column that looks like integers in the first chunk and holds a
    /// decimal far later: the scan says the layout changed, and the next
    /// scan reads it as the loader does (doubles).
    @Test("a type that changes after the first chunk restarts the scan with the loader's type")
    func lateTypeChange() async throws {
        var text = "k,v\n"
        for i in 0..<2000 { text += "g\(i % 3),\(i)\n" }
        text += "g0,2.5\n"
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: 1000))
        let v = try #require(scan.schema.index(ofField: "v"))
        #expect(scan.schema.fields[v].type == .integer)
        let first = try await scan.scan(process: { $0.count }) { _ in }
        #expect(first == .layoutChanged)
        #expect(scan.schema.fields[v].type == .double)
        let whole = try FeatureFile.load(path: path)
        let streamed = try await scanned(path, chunkSize: 1000)
        #expect(streamed.rows == plainRows(whole))
        #expect(streamed.rows.last?.values[v] == .double(2.5))
    }

    /// A scan that settles the layout as it goes observes every column,
    /// read or not: after it, a scan of any column never restarts. It
    /// answers layoutChanged only when a column it converted changed type.
    @Test("one pass settles every column's type; it restarts only for a column it converted")
    func scanSettlingLayout() async throws {
        var text = "k,v,w\n"
        for i in 0..<2000 { text += "g\(i % 3),\(i),\(i * 2)\n" }
        text += "g0,2.5,3.5\n"
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for converted in [false, true] {
            let scan = try #require(try CSVFileScan.open(path: path, chunkSize: 1000))
            let v = try #require(scan.schema.index(ofField: "v")), w = try #require(scan.schema.index(ofField: "w"))
            #expect(scan.schema.fields[v].type == .integer && scan.schema.fields[w].type == .integer)
            let first = try await scan.scanSettlingLayout(neededFields: converted ? [v] : [], process: { $0.count }) { _ in }
            #expect(first == (converted ? .layoutChanged : .finished(rows: 2001)))
            #expect(scan.schema.fields[v].type == .double && scan.schema.fields[w].type == .double)
            var values: [PlainRow] = []
            let all = try await scan.scan(process: plainRows) { values.append(contentsOf: $0) }
            #expect(all == .finished(rows: 2001))
            #expect(values.last?.values[w] == .double(3.5) && values.first?.values[v] == .double(0))
            #expect(scan.position.passesStarted == 2)
        }
    }

    /// A scan reads the file up to its size when opened: rows appended
    /// later are not read, so every scan gives the same rows.
    @Test("a file that grows after opening is read to its size at open")
    func growingFile() async throws {
        var text = "k,v\n"
        for i in 0..<500 { text += "g\(i % 3),\(i)\n" }
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: 1000))
        let v = try #require(scan.schema.index(ofField: "v"))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((500..<900).map { "g\($0 % 3),\($0)\n" }.joined().utf8))
        try handle.close()
        var values: [AttributeValue] = []
        let outcome = try await scan.scan(process: plainRows) { values += $0.map { $0.values[v] } }
        #expect(outcome == .finished(rows: 500))
        #expect(values == (0..<500).map { .int(Int64($0)) })
    }

    /// A file cut after opening fails every kind of scan with the error naming
    /// it and both sizes (before and during a scan), never with fewer rows.
    @Test("a file cut after opening is an error naming it, before or during a scan")
    func shrinkingFile() async throws {
        var text = "k,v\n"
        var lineEnds: [Int] = []
        for i in 0..<5000 {
            text += "g\(i % 3),\(i)\n"
            lineEnds.append(text.utf8.count)
        }
        let size = text.utf8.count
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: 1000))
        // Cut while the scan reads: after its first chunk, the reader is at most a few chunks ahead.
        let during = lineEnds[2499]   // at a record's end: the rows before it parse
        var values = 0
        await #expect(throws: FeatureLoadError(file: path, .shrank(size: during, expected: size))) {
            _ = try await scan.scan(process: plainRows) { rows in
                if values == 0 { #expect(truncate(path, off_t(during)) == 0) }
                values += rows.count
            }
        }
        #expect(values > 0 && values < 5000)
        // Cut before the next scan starts.
        let before = lineEnds[999]
        #expect(truncate(path, off_t(before)) == 0)
        await #expect(throws: FeatureLoadError(file: path, .shrank(size: before, expected: size))) {
            _ = try await scan.scanSettlingLayout(neededFields: nil, process: plainRows) { _ in }
        }
    }

    /// A bad record many chunks into the file is reported with its line in
    /// the file (counting the line breaks inside quoted fields before it),
    /// as the loader reports it.
    @Test("errors name the file's line, as the loader's do", arguments: [
        ("a,b\n", "1,2,3\n", .fieldCount(expected: 2, found: 3)),
        ("a,\"b\"\n", "1,\"never closed\n", .unclosedQuote),
        ("x,y\n", "1,north\n", .notANumber(key: "y", column: "y", text: "multi\nline")),   // the first bad y is the quoted text at line 2
    ] as [(String, String, CSVError.Reason)])
    func errorsKeepLines(header: String, bad: String, reason: CSVError.Reason) async throws {
        var text = header
        for i in 0..<300 { text += i % 7 == 0 ? "\(i),\"multi\nline\"\n" : "\(i),\(i)\n" }
        text += bad
        text += "9,9\n"
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var loaderError: FeatureLoadError?
        do { _ = try FeatureFile.load(path: path) } catch { loaderError = error }
        let expected = try #require(loaderError)
        #expect(expected.reason == .csv(reason))
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: 50))
        await #expect(throws: expected) {
            _ = try await scan.scan(process: { $0.count }) { _ in }
        }
    }

    /// CRLF files read in chunks that can end between a CR and its LF (one
    /// byte at a time: every such split happens): a CRLF is one line end, so
    /// an error far into the file names the line the test counted itself.
    @Test("a CRLF split between reads is one line end: errors name the counted line", arguments: [1, 2, 3, 50])
    func crlfSplitKeepsLines(chunkSize: Int) async throws {
        var text = "a,b\r\n"
        var line = 1
        for i in 0..<120 {
            text += i % 9 == 0 ? "\(i),\"two\r\nlines\"\r\n" : "\(i),\(i)\r\n"
            line += i % 9 == 0 ? 2 : 1
        }
        text += "1,2,3\r\n9,9\r\n"
        let badLine = line + 1
        let path = try temporaryCSV(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scan = try #require(try CSVFileScan.open(path: path, chunkSize: chunkSize))
        var thrown: FeatureLoadError?
        do { _ = try await scan.scan(process: { $0.count }) { _ in } } catch { thrown = error as? FeatureLoadError }
        let error = try #require(thrown)
        #expect(error.line == badLine)
        #expect(error.reason == .csv(.fieldCount(expected: 2, found: 3)))
    }

    /// JSON files are not streamed here (nil), and binary ones are refused by name.
    @Test("only CSV is streamed; binary files are refused")
    func otherFormats() throws {
        let json = try temporaryCSV(Array(#"{"geometry":{"x":1,"y":2},"attributes":{"a":1}}"#.utf8) + [0x0A])
        defer { try? FileManager.default.removeItem(atPath: json) }
        #expect(try CSVFileScan.open(path: json) == nil)
        let binary = try temporaryCSV([0x1F, 0x8B, 0x08, 0x00])
        defer { try? FileManager.default.removeItem(atPath: binary) }
        #expect(throws: FeatureLoadError(file: binary, .binary(kind: "it is gzip-compressed (decompress it first: gunzip)"))) {
            try CSVFileScan.open(path: binary)
        }
    }
}
