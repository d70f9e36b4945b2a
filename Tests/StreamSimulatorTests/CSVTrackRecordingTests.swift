import EntityStreamCore
import StreamSimulator
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

private let mapping = CSVColumnMapping(id: "id", time: "t", x: "x", y: "y")

private func read(_ text: String, _ mapping: CSVColumnMapping = mapping) throws(CSVError) -> CSVTrackRecording {
    try CSVTrackRecording(csv: text, mapping: mapping)
}

/// Expects `text` to be refused, or the row at `line` to be rejected (the
/// file read, that row skipped), with a message containing `expected`.
private func expectRejected(_ text: String, line: Int?, _ expected: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let recording = try read(text)
        let row = recording.rejectedRows.first { $0.line == line }
        #expect(row?.reason.contains(expected) == true, "\(text.debugDescription): \(recording.rejectedRows)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(expected), "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite("CSVTrackRecording", .bounded)
struct CSVTrackRecordingTests {
    /// A minimal file yields the schema without x/y, a date time field, and WGS84 points.
    @Test func basicRecording() throws {
        let recording = try read("id,t,x,y,name\nA,2020-01-01T00:00:01Z,1.5,2.5,alpha\nB,2020-01-01T00:00:00Z,-3,4,beta\n")
        #expect(recording.schema.fields.map(\.name) == ["id", "t", "name"])
        #expect(recording.schema.fields.map(\.type) == [.string, .date, .string])
        #expect(recording.schema.trackIDField?.name == "id")
        #expect(recording.timeFieldIndex == 1)
        #expect(recording.observations == [
            Observation(geometry: Point(x: -3, y: 4, wkid: 4326),
                        attributes: [.string("B"), .date(milliseconds: 1_577_836_800_000), .string("beta")],
                        receivedAt: 1_577_836_800_000),
            Observation(geometry: Point(x: 1.5, y: 2.5, wkid: 4326),
                        attributes: [.string("A"), .date(milliseconds: 1_577_836_801_000), .string("alpha")],
                        receivedAt: 1_577_836_801_000),
        ])
    }

    /// Equal times keep their file order (stable sort).
    @Test func stableSort() throws {
        let text = "id,t,x,y\nc,2020-01-01 00:00:05,0,0\na,2020-01-01 00:00:00,0,0\nb,2020-01-01 00:00:05,0,0\nd,2020-01-01 00:00:00,0,0\n"
        let ids = try read(text).observations.map { $0.attribute(0) }
        #expect(ids == [.string("a"), .string("d"), .string("c"), .string("b")])
    }

    /// Column types are inferred from the values; empty values are null and ignored by inference.
    @Test func typeInference() throws {
        let text = """
            id,t,x,y,small,big,mixed,code,text,empty,sparse
            1,0,0,0,5,3000000000,1,007,a,,
            2,1,0,0,-7,-1,2.5,010,b,,3.25
            3,2,0,0,,4,1e3,1,c,,
            """
        let recording = try read(text)
        #expect(recording.schema.fields.map(\.type) ==
                [.integer, .date, .integer, .bigInteger, .double, .string, .string, .string, .double])
        let first = recording.observations[0]
        #expect(first.attributes == [.int(1), .date(milliseconds: 0), .int(5), .int(3_000_000_000), .double(1),
                                     .string("007"), .string("a"), .null, .null])
        #expect(recording.observations[2].attribute(2) == .null)
        #expect(recording.observations[2].attribute(4) == .double(1000))
    }

    /// Quoting only escapes: quoted numbers are numbers; commas, doubled quotes and line breaks survive.
    @Test func quotedFields() throws {
        let text = "\"id\",\"t\",\"x\",\"y\",\"note\"\r\n\"7\",\"2020-01-01 00:00:00\",\"1\",\"2\",\"a, \"\"b\"\"\r\nc\"\r\n"
        let recording = try read(text)
        #expect(recording.schema.fields.map(\.type) == [.integer, .date, .string])
        #expect(recording.observations.first?.attributes ==
                [.int(7), .date(milliseconds: 1_577_836_800_000), .string("a, \"b\"\r\nc")])
    }

    /// LF, CRLF and lone-CR line ends, a missing final newline, blank lines and a BOM are all accepted.
    @Test(arguments: [
        "id,t,x,y\nA,0,1,2\nB,1,3,4",
        "id,t,x,y\r\nA,0,1,2\r\nB,1,3,4\r\n",
        "id,t,x,y\rA,0,1,2\rB,1,3,4\r",
        "\u{FEFF}id,t,x,y\n\nA,0,1,2\n\n\nB,1,3,4\n\n",
    ])
    func lineEndings(text: String) throws {
        let observations = try read(text).observations
        #expect(observations.map(\.geometry) == [Point(x: 1, y: 2, wkid: 4326), Point(x: 3, y: 4, wkid: 4326)])
    }

    /// A bare quote inside an unquoted field is kept literally.
    @Test func bareQuoteKept() throws {
        let recording = try read("id,t,x,y\n5\"6,0,1,2\n")
        #expect(recording.observations.first?.attribute(0) == .string("5\"6"))
    }

    /// Mapped columns are found case-insensitively; header names are trimmed.
    @Test func headerMatching() throws {
        let recording = try read(" ID , T ,X,Y\nA,0,1,2\n", mapping)
        #expect(recording.schema.fields.map(\.name) == ["ID", "T"])
        #expect(recording.schema.trackIDField?.name == "ID")
    }

    /// A header without data rows gives an empty recording.
    @Test func headerOnly() throws {
        let recording = try read("id,t,x,y,speed\n")
        #expect(recording.observations.isEmpty)
        #expect(recording.schema.fields.map(\.type) == [.string, .date, .string])
    }

    /// Time texts in every accepted form convert to the right epoch milliseconds.
    @Test(arguments: [
        ("2016-11-24T00:00:51-06:00", Int64(1_479_967_251_000)),
        ("2016-11-24T06:00:51Z", 1_479_967_251_000),
        ("2016-11-24t06:00:51z", 1_479_967_251_000),
        ("2016-11-24T06:00:51.123456Z", 1_479_967_251_123),
        ("2016-11-24T06:00:51,5Z", 1_479_967_251_500),
        ("2016-11-24T00:00-0600", 1_479_967_200_000),
        ("2016-11-24T12:00:51+06", 1_479_967_251_000),
        ("2026-01-26 15:57:02", 1_769_443_022_000),
        ("2026-01-26T15:57:02", 1_769_443_022_000),
        ("2024-02-29T12:00:00+05:30", 1_709_188_200_000),
        ("2000-01-01", 946_684_800_000),
        ("1969-12-31T23:59:59.999Z", -1),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        (" 2026-01-26 15:57:02 ", 1_769_443_022_000),
    ] as [(String, Int64)])
    func timeTexts(time: String, expected: Int64) throws {
        let recording = try read("id,t,x,y\nA,\"\(time)\",0,0\n")
        #expect(recording.observations.first?.receivedAt == expected)
    }

    /// Numeric time columns are epoch seconds, or milliseconds when the largest magnitude is ≥ 1e11.
    @Test(arguments: [
        (["1480053460", "1480053461"], [Int64(1_480_053_460_000), 1_480_053_461_000]),
        (["1480053460.25", "0"], [0, 1_480_053_460_250]),
        (["1480053460000", "1480053461500"], [1_480_053_460_000, 1_480_053_461_500]),
        (["99999999999", "5"], [5_000, 99_999_999_999_000]),
        (["100000000000", "5"], [5, 100_000_000_000]),
        (["-1", "1.5e9"], [-1_000, 1_500_000_000_000]),
    ] as [([String], [Int64])])
    func epochTimes(values: [String], expected: [Int64]) throws {
        let text = "id,t,x,y\n" + values.map { "A,\($0),0,0\n" }.joined()
        #expect(try read(text).observations.map(\.receivedAt) == expected)
    }

    /// A mix of epoch numbers and date texts in one column is read value by value.
    @Test func mixedTimeColumn() throws {
        let text = "id,t,x,y\nA,1480053460,0,0\nA,2016-11-24T06:00:51Z,0,0\n"
        #expect(try read(text).observations.map(\.receivedAt) == [1_479_967_251_000, 1_480_053_460_000])
    }

    /// Each malformed file is rejected with the right line and a message naming the problem.
    @Test(arguments: [
        ("", nil, "empty"),
        ("\n\n", nil, "empty"),
        ("id,t,x\nA,0,1\n", nil, "no column 'y' (mapped as y)"),
        ("id,time,x,y\nA,0,1,2\n", nil, "no column 't' (mapped as time)"),
        ("id,t,x,y,X\nA,0,1,2,3\n", 1, "twice"),
        ("id,t,x,y,,z\nA,0,1,2,3,4\n", 1, "column 5 has no name"),
        ("id,t,x,y\nA,0,1,2\nB,0,1\n", 3, "expected 4 fields as in the header, found 3"),
        ("id,t,x,y\nA,0,1,2,9\n", 2, "found 5"),
        ("id,t,x,y\nA,0,1,2\n\nB,yesterday,1,2\n", 4, "cannot read 'yesterday' as a time"),
        ("id,t,x,y\nA,2023-02-29 00:00:00,1,2\n", 2, "cannot read '2023-02-29 00:00:00'"),
        ("id,t,x,y\nA,2023-01-01 24:00:00,1,2\n", 2, "as a time"),
        ("id,t,x,y\nA,2023-01-01T10:00:00+25:00,1,2\n", 2, "as a time"),
        ("id,t,x,y\nA,2023-01-01T10:00:00.Z,1,2\n", 2, "as a time"),
        ("id,t,x,y\nA,2023-1-01,1,2\n", 2, "as a time"),
        ("id,t,x,y\nA,1e30,1,2\n", 2, "as a time"),
        ("id,t,x,y\nA,,1,2\n", 2, "time column 't' is empty"),
        ("id,t,x,y\nA,0,east,2\n", 2, "x column 'x': 'east' is not a number"),
        ("id,t,x,y\nA,0,1,nan\n", 2, "y column 'y': 'nan' is not a number"),
        ("id,t,x,y\nA,0,1,1e999\n", 2, "not a number"),
        ("id,t,x,y\nA,0,1,\n", 2, "y column 'y' is empty"),
        ("id,t,x,y\n\"multi\nline\",0,1,2\nB,0,x,2\n", 4, "x column"),
        ("id,t,x,y\nA,0,1,2\nB,0,\"1,2\n", 3, "never closed"),
        ("id,t,x,y\nA,0,\"1\"2,3\n", 2, "after a closing quote"),
    ] as [(String, Int?, String)])
    func rejects(text: String, line: Int?, expected: String) {
        expectRejected(text, line: line, expected)
    }

    /// Rows that cannot be read are skipped, each kept with its line and
    /// reason and its place among the others (after the valid row before
    /// it in the file); the valid rows before and after it are kept.
    @Test func badRowsAreSkippedInPlace() throws {
        let text = "id,t,x,y\nA,,1,2\nA,30,1,2\nB,10,1,2\nC,,1,2\nD,20,1\nE,5,1,2\n"
        let recording = try read(text)
        #expect(recording.observations.count == 3)
        // Time order: E(5 s), B(10 s), A(30 s).
        #expect(recording.observations.map(\.receivedAt) == [5_000, 10_000, 30_000])
        #expect(recording.rejectedRows.map(\.line) == [2, 5, 6])
        #expect(recording.rejectedRows.map(\.after) == [nil, 1, 1], "after B, which stands at position 1 in time order")
        let stream = try recording.recordedStream(trackIDField: nil)
        #expect(stream.file.entries.map { $0.problem == nil ? "ok" : "line \($0.line)" } == ["line 2", "ok", "ok", "line 5", "line 6", "ok"])
    }

    /// An invalid mapping is rejected before the text is read.
    @Test func invalidMappingRejected() {
        #expect(throws: CSVError.self) {
            _ = try CSVTrackRecording(csv: "a,b\n", mapping: CSVColumnMapping(id: "a", time: "a", x: "b", y: "c"))
        }
    }

    /// Arbitrary bytes never crash the reader: invalid UTF-8 is repaired, odd input is an error or a recording.
    @Test func garbageNeverCrashes() {
        var rng = SplitMix64(seed: 2024)
        let alphabet: [UInt8] = Array("id,t,x,y\"\r\n0123456789.-eZT: ".utf8) + [0xFF, 0xC3]
        for _ in 0..<2000 {
            let length = rng.next(below: 60)
            let bytes = (0..<length).map { _ in alphabet[rng.next(below: alphabet.count)] }
            _ = try? read("id,t,x,y\n" + String(decoding: bytes, as: UTF8.self))
        }
    }
}
