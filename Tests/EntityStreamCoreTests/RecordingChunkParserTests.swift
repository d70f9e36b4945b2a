import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFiles

/// Parses `bytes` fed in chunks of the given sizes (cycled), returning (message, offset, line, problem) entries.
private func parseInChunks(_ bytes: [UInt8], sizes: [Int]) throws -> (entries: [(String, Int64?, Int, String?)], layout: RecordingFile.Layout?) {
    var parser = RecordingChunkParser(maximumMessageBytes: 1 << 20)
    var batch = RecordingChunkParser.Batch()
    var position = 0
    var turn = 0
    repeat {
        let size = sizes[turn % sizes.count]
        turn += 1
        let end = min(position + size, bytes.count)
        try bytes[position..<end].withUnsafeBytes { try parser.append($0, isLast: end == bytes.count, into: &batch) }
        position = end
    } while position < bytes.count
    let entries = (0..<batch.count).map {
        (String(decoding: batch.bytes[batch.range($0)], as: UTF8.self), batch.offsets[$0], batch.lines[$0], batch.problems[$0])
    }
    return (entries, parser.layout)
}

/// The same file read whole by `RecordingFile` (the independent oracle).
private func parseWhole(_ bytes: [UInt8]) throws -> (entries: [(String, Int64?, Int, String?)], layout: RecordingFile.Layout) {
    let file = try RecordingFile(bytes: bytes)
    return (file.entries.map { (String(decoding: $0.message, as: UTF8.self), $0.offsetMilliseconds, $0.line, $0.problem) }, file.layout)
}

private let header = #"{"recording":"entitystream","version":1,"service":"http://h/StreamServer","startedAt":1,"description":{"fields":[]}}"#

@Suite("Recording chunk parser", .bounded)
struct RecordingChunkParserTests {
    static let files: [String] = [
        // Feature lines with blank lines, CRLF and surrounding spaces.
        "{\"attributes\":{\"a\":1}}\n\n  {\"attributes\":{\"a\":\"x,]\"}} \r\n{\"attributes\":{\"a\":3}}",
        // A recording: header, message lines, a text line.
        header + "\n{\"t\":0,\"message\":{\"attributes\":{\"a\":1}}}\n{\"t\":15,\"text\":\"not json\"}\n\n{\"t\":40,\"message\":[1,2]}\n",
        // A JSON array over several lines, with brackets and commas inside strings and nesting.
        "  [\n {\"attributes\":{\"s\":\"a],[b\\\"c\"}},\n {\"geometry\":{\"x\":1,\"y\":[2,3]}} ,{\"attributes\":{}}\n]\n",
        // A recording with malformed lines among good ones (kept with their problem, in place).
        header + "\n{\"t\":0,\"message\":{\"a\":1}}\n{\"t\":0.5,\"message\":{}}\n{\"message\":{}}\n{\"t\":5,\n{\"t\":9,\"text\":\"x\"}\n",
        // Feature lines whose first line is itself an array message.
        "[{\"a\":1},{\"a\":2}]\n{\"a\":3}\n[{\"a\":4}]\n",
        // A one-line array, then blank lines.
        "[{\"a\":1},{\"a\":2}]\n\n  \n",
        // A UTF-8 byte-order mark before feature lines, an array and a recording.
        "\u{FEFF}{\"a\":1}\n{\"b\":2}\n",
        "\u{FEFF}[{\"a\":1},\n{\"b\":2}]",
        "\u{FEFF}" + header + "\n{\"t\":4,\"message\":{\"a\":1}}",
        // A carriage return at a line's start (a header's, a malformed line's) is white space for both readers (found by fuzzing).
        "\r" + header + "\n\r{\"t\":5,\n\r {\"t\":6,\"message\":{}}\n",
    ]

    /// Fed in any chunk sizes (1 byte, primes, whole), the parser yields exactly what reading the whole file yields.
    @Test(arguments: files)
    func chunkedEqualsWhole(text: String) throws {
        let bytes = Array(text.utf8)
        let whole = try parseWhole(bytes)
        for sizes in [[1], [2, 3, 5], [7], [64], [bytes.count]] {
            let chunked = try parseInChunks(bytes, sizes: sizes)
            #expect(chunked.layout == whole.layout)
            #expect(chunked.entries.map(\.0) == whole.entries.map(\.0), "chunk sizes \(sizes)")
            #expect(chunked.entries.map(\.1) == whole.entries.map(\.1))
            #expect(chunked.entries.map(\.2) == whole.entries.map(\.2))
            #expect(chunked.entries.map(\.3) == whole.entries.map(\.3))
        }
    }

    /// A generated file of a thousand lines, fed in random chunk sizes, matches the whole-file reading.
    @Test func randomChunkingOfALargerFile() throws {
        var random = SplitMix64(seed: 42)
        var lines = [header]
        for index in 0..<1_000 {
            lines.append("{\"t\":\(index * 10),\"message\":{\"attributes\":{\"n\":\(index),\"s\":\"\(String(repeating: "x", count: Int(random.next() % 300)))\"}}}")
        }
        let bytes = Array(lines.joined(separator: "\n").utf8)
        let whole = try parseWhole(bytes)
        let sizes = (0..<50).map { _ in 1 + Int(random.next() % 5_000) }
        let chunked = try parseInChunks(bytes, sizes: sizes)
        #expect(chunked.entries.count == 1_000)
        #expect(chunked.entries.map(\.0) == whole.entries.map(\.0))
        #expect(chunked.entries.map(\.1) == whole.entries.map(\.1))
    }

    /// A broken recording line does not refuse the file: it comes as a message carrying its problem (the line as it stands), in its place.
    @Test func brokenRecordingLineIsAProblemEntry() throws {
        let parsed = try parseInChunks(Array((header + "\n{\"message\":1}\n{\"t\":2,\"message\":{}}").utf8), sizes: [8])
        #expect(parsed.layout == .recording)
        #expect(parsed.entries.count == 2)
        #expect(parsed.entries.first?.0 == "{\"message\":1}")
        #expect(parsed.entries.first?.2 == 2)
        #expect(parsed.entries.first?.3?.contains("a recording line needs \"t\"") == true)
        #expect(parsed.entries.last?.1 == 2 && parsed.entries.last?.3 == nil)
    }

    /// Malformed files are refused naming the line: an unclosed or trailing array, an empty file, an overlong array element.
    @Test func malformedFilesNameTheLine() throws {
        do {
            _ = try parseInChunks(Array("[{\"a\":1},\n{\"a\":2}".utf8), sizes: [4])
            Issue.record("an unclosed array was accepted")
        } catch let error as RecordingError {
            #expect(error == .arrayNotClosed(line: 2))
        }
        #expect(throws: RecordingError.textAfterArray(line: 1)) { _ = try parseInChunks(Array("[{\"a\":1}] x".utf8), sizes: [3]) }
        #expect(throws: RecordingError.empty) { _ = try parseInChunks(Array(" \n\n".utf8), sizes: [1]) }
        var parser = RecordingChunkParser(maximumMessageBytes: 100)
        var batch = RecordingChunkParser.Batch()
        let long = Array("[{\"a\":\"".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 150)
        #expect(throws: RecordingError.elementTooLong(line: 1, limit: 100)) { try long.withUnsafeBytes { try parser.append($0, isLast: false, into: &batch) } }
    }

    /// A line over the limit is skipped, never held whole, in its place: an empty message whose
    /// problem names its size; the lines around it are read (a replay used to stop there, exit 1).
    /// The same whatever the chunking, for a first line, a middle one and a last one without a newline.
    @Test(arguments: [1, 7, 64, 99, 100, 101, 4096])
    func overlongLinesAreSkippedInTheirPlace(chunk: Int) throws {
        let good = "{\"attributes\":{\"n\":1}}"
        let lines = [String(repeating: "a", count: 101), good, String(repeating: "b", count: 350), "  " + good + "  ",
                     String(repeating: "c", count: 100), String(repeating: "d", count: 230)]
        let text = lines.joined(separator: "\n")
        var parser = RecordingChunkParser(maximumMessageBytes: 100)
        var batch = RecordingChunkParser.Batch()
        let bytes = Array(text.utf8)
        var position = 0
        repeat {
            let end = min(position + chunk, bytes.count)
            try bytes[position..<end].withUnsafeBytes { try parser.append($0, isLast: end == bytes.count, into: &batch) }
            position = end
        } while position < bytes.count
        let entries = (0..<batch.count).map { (String(decoding: batch.bytes[batch.range($0)], as: UTF8.self), batch.lines[$0], batch.problems[$0]) }
        func skipped(_ size: Int) -> String { "a line of \(size) bytes, longer than the limit of 100 bytes: skipped" }
        #expect(entries.map(\.0) == ["", good, "", good, lines[4], ""])
        #expect(entries.map(\.1) == [1, 2, 3, 4, 5, 6])
        #expect(entries.map(\.2) == [skipped(101), nil, skipped(350), nil, nil, skipped(230)])
        #expect(parser.layout == .featureLines)
    }

    /// A batch of large messages stops at about 4 MiB, however few messages it holds: a replay of
    /// 600 KB lines read 1,024 of them (600 MB) before handing any over.
    @Test func batchesOfLargeMessagesAreBoundedByBytes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString).json").path
        let line = "{\"attributes\":{\"note\":\"" + String(repeating: "n", count: 100_000) + "\"}}"
        try Array(repeating: line, count: 120).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try RecordingFileReader(path: path)
        var batch = RecordingChunkParser.Batch()
        var batches = 0
        var messages = 0
        var more = true
        while more {
            batch.removeAll()
            more = try reader.read(into: &batch, minimum: 1024)
            batches += 1
            messages += batch.count
            #expect(batch.bytes.count <= RecordingFileReader.batchByteLimit + (256 << 10) + line.utf8.count, "\(batch.bytes.count) bytes")
        }
        #expect(messages == 120)
        #expect(batches >= 3)
    }

    /// The file reader streams a file in small chunks and starts again after rewind().
    @Test func fileReaderStreamsAndRewinds() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chunks-\(UUID().uuidString).json").path
        let lines = (0..<500).map { "{\"attributes\":{\"n\":\($0)}}" }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try RecordingFileReader(path: path, chunkSize: 100)
        for _ in 0..<2 {
            var seen: [String] = []
            var batch = RecordingChunkParser.Batch()
            var more = true
            while more {
                batch.removeAll()
                more = try reader.read(into: &batch, minimum: 7)
                seen += (0..<batch.count).map { String(decoding: batch.bytes[batch.range($0)], as: UTF8.self) }
            }
            #expect(seen == lines)
            try reader.rewind()
        }
        #expect(throws: RecordingError.unreadable(path: "/no/such/file", errno: ENOENT)) { _ = try RecordingFileReader(path: "/no/such/file") }
    }
}
