import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFiles

/// Mutated recording files through every reader: the whole-file reader, the
/// chunk parser (in random chunk sizes), the streaming summary and a replay.
/// No trap; a file is either refused with a ``RecordingError`` naming its line
/// or read with one entry per line (a message or a problem entry), and the
/// valid lines the test wrote are never lost.
@Suite("Recording fuzzing", .bounded(.compute, limit: FuzzRounds.timeLimit))
struct RecordingFuzzTests {
    /// A recording the test wrote: its bytes, and what each message line holds.
    struct Written {
        var bytes: [UInt8]
        /// Line number → (offset, message) of the lines left valid.
        var valid: [Int: (offset: Int64, message: [UInt8])]
        /// Lines that were mutated.
        var mutated: Set<Int>
        /// Lines in the file (header included).
        var lineCount: Int
        /// Mutated lines left blank (white space only), which every reader skips as empty lines.
        var blank: Set<Int> = []
    }

    static let header = RecordingHeader(
        service: "http://127.0.0.1/arcgis/rest/services/F/StreamServer", startedAt: 1_795_420_800_000,
        description: (try? JSONParser.parse(Array(#"{"fields":[{"name":"id","type":"esriFieldTypeString"},{"name":"speed","type":"esriFieldTypeDouble"}],"timeInfo":{"trackIdField":"id"},"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"streamUrls":[{"transport":"ws","urls":["ws://127.0.0.1/arcgis/ws/services/F/StreamServer"]}]}"#.utf8))) ?? .null)

    static let dictionary = [#""t""#, #""message""#, #""text""#, #""attributes""#, #""geometry""#, #""recording""#, #""entitystream""#,
                             #""version""#, #""description""#, "\u{FEFF}", "{\"t\":", "]", "["]

    /// A recording of `count` messages (one feature of track T<i> each) with `mutations` of its lines mutated (header included when asked).
    static func write(count: Int, mutating fraction: Double, header mutateHeader: Bool, newlines: Bool, _ mutator: inout ByteMutator) -> Written {
        var lines: [[UInt8]] = [Self.header.line()]
        var valid: [Int: (Int64, [UInt8])] = [:]
        var mutated: Set<Int> = []
        var offset: Int64 = 0
        for index in 0..<count {
            offset += Int64(mutator.int(0...5000))
            let x = -111.9 + Double(mutator.int(0...1000)) / 1e4
            let message = Array(#"{"geometry":{"x":\#(x),"y":40.6},"attributes":{"id":"T\#(index)","speed":\#(mutator.int(0...90))}}"#.utf8)
            var writer = JSONWriter()
            message.withUnsafeBytes { RecordingWriter.appendLine(offsetMilliseconds: offset, message: $0, to: &writer) }
            lines.append(Array(writer.bytes.dropLast()))
            valid[lines.count] = (offset, message)
        }
        mutator.allowNewlines = newlines
        for number in 1...lines.count where (number == 1 && mutateHeader) || (number > 1 && mutator.rng.chance(fraction)) {
            lines[number - 1] = mutator.mutate(lines[number - 1], count: mutator.int(1...3))
            valid[number] = nil
            mutated.insert(number)
        }
        let bytes = Array(lines.joined(separator: [0x0A]))
        let blank = Set(mutated.filter { number in lines[number - 1].allSatisfy { [0x20, 0x09, 0x0D].contains($0) } })
        return Written(bytes: bytes, valid: valid.mapValues { (offset: $0.0, message: $0.1) }, mutated: mutated, lineCount: lines.count,
                       blank: blank)
    }

    typealias Entry = (message: [UInt8], offset: Int64?, line: Int, problem: String?)

    /// The file through ``RecordingChunkParser`` in chunks of random sizes.
    static func chunked(_ bytes: [UInt8], _ mutator: inout ByteMutator) throws(RecordingError) -> (layout: RecordingFile.Layout?, entries: [Entry]) {
        var parser = RecordingChunkParser(maximumMessageBytes: 1 << 20)
        var batch = RecordingChunkParser.Batch()
        var position = 0
        repeat {
            let end = min(bytes.count, position + mutator.int(1...97))
            let chunk = Array(bytes[position..<end])
            let outcome = chunk.withUnsafeBytes { raw in
                Result { () throws(RecordingError) in try parser.append(raw, isLast: end == bytes.count, into: &batch) }
            }
            try outcome.get()
            position = end
        } while position < bytes.count
        let entries = (0..<batch.count).map { (Array(batch.bytes[batch.range($0)]), batch.offsets[$0], batch.lines[$0], batch.problems[$0]) }
        return (parser.layout, entries)
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-recording-\(UUID().uuidString).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Checks one written file through the whole-file reader, the chunk parser and the streaming summary.
    static func check(_ written: Written, seed: UInt64, _ mutator: inout ByteMutator) throws {
        let context = "\(FuzzRounds.label(seed)), mutated lines \(written.mutated.sorted())"
        let whole: RecordingFile
        do { whole = try RecordingFile(bytes: written.bytes) } catch {
            // Only a header can refuse a file whose message lines are one line each: the error names it.
            #expect(error.line == 1 && !error.message.isEmpty, "\(error) — \(context)")
            #expect(written.mutated.contains(1), "a file with a valid header refused: \(error) — \(context)")
            #expect(throws: RecordingError.self, "the chunk parser accepted what the file reader refused — \(context)") {
                try Self.chunked(written.bytes, &mutator)
            }
            return
        }
        // Every line is exactly one entry (the header of a recording is none), in order.
        let expectedLines = ((whole.layout == .recording ? 2 : 1)...written.lineCount).filter { !written.blank.contains($0) }
        if whole.layout != .featureArray {
            #expect(whole.entries.map(\.line) == expectedLines, "lines lost or duplicated in \(whole.layout) — \(context)")
        }
        if whole.layout == .recording {
            for entry in whole.entries {
                if let expected = written.valid[entry.line] {
                    #expect(entry.problem == nil && entry.offsetMilliseconds == expected.offset && entry.message == expected.message,
                            "valid line \(entry.line) not read as written — \(context)")
                } else {
                    let problem = entry.problem ?? "none"
                    #expect(!problem.isEmpty, "an empty problem — \(context)")
                }
            }
        } else {
            #expect(written.mutated.contains(1), "a valid header not recognised — \(context)")
        }
        // The chunk parser agrees with the whole-file reader (arrays: it splits without validating, so only lines).
        let parsed: (layout: RecordingFile.Layout?, entries: [Entry])
        do { parsed = try Self.chunked(written.bytes, &mutator) } catch {
            Issue.record("the chunk parser refused what the file reader read as \(whole.layout): \(error) — \(context)")
            return
        }
        #expect(parsed.layout == whole.layout, "\(context)")
        if whole.layout != .featureArray {
            #expect(parsed.entries.count == whole.entries.count, "\(context)")
            for (chunk, entry) in zip(parsed.entries, whole.entries) {
                #expect(chunk.message == entry.message && chunk.offset == entry.offsetMilliseconds && chunk.line == entry.line
                        && chunk.problem == entry.problem,
                        "chunked entry at line \(chunk.line) differs: \(String(decoding: chunk.message, as: UTF8.self).debugDescription) \(String(describing: chunk.problem)) vs \(String(decoding: entry.message, as: UTF8.self).debugDescription) \(String(describing: entry.problem)) — \(context)")
            }
        }
        // The streaming summary counts the same messages and problems.
        guard whole.layout == .recording else { return }
        let path = try Self.temporaryFile(written.bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let summary = try RecordingSummary(path: path, trackIDField: nil, trackFieldRequired: false, readWholeFile: true)
            #expect(summary.messageCount == whole.entries.count, "\(context)")
            #expect(summary.problemCount == whole.problemCount && summary.problemCount <= written.mutated.count, "\(context)")
        } catch {
            #expect(!error.message.isEmpty, "\(context)")
        }
    }

    /// Recordings with some message lines mutated (never across lines): every line is an entry, the valid ones exactly as written.
    @Test func mutatedLinesAreEntriesAndValidLinesStay() async throws {
        try await FuzzRounds.run("recording lines", fixed: [0x5EC_01, 0x5EC_02]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary)
            for _ in 0..<60 {
                let written = Self.write(count: mutator.int(1...40), mutating: 0.25, header: false, newlines: false, &mutator)
                try Self.check(written, seed: seed, &mutator)
            }
        }
    }

    /// Recordings whose header is mutated too: refused naming line 1, or read as another layout with every line an entry.
    @Test func mutatedHeadersAreRefusedByLine() async throws {
        try await FuzzRounds.run("recording headers", fixed: [0x5EC_11]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary)
            for _ in 0..<80 {
                let written = Self.write(count: mutator.int(1...12), mutating: 0.2, header: true, newlines: false, &mutator)
                try Self.check(written, seed: seed, &mutator)
            }
        }
    }

    /// Whole files mutated anywhere (line breaks included): no reader traps, and a refusal names a line within the file.
    @Test func mutatedFilesNeverTrap() async {
        await FuzzRounds.run("recording files", fixed: [0x5EC_21]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary + ["\n", "\r\n", "\n\n", "[\n", "\n]"])
            for _ in 0..<150 {
                let written = Self.write(count: mutator.int(1...10), mutating: 0, header: false, newlines: true, &mutator)
                var bytes = mutator.mutate(written.bytes, count: mutator.int(1...6))
                if mutator.rng.chance(0.2) { bytes = Array("[".utf8) + bytes }
                let lines = 1 + bytes.count { $0 == 0x0A }
                let context = FuzzRounds.label(seed)
                do throws(RecordingError) {
                    let file = try RecordingFile(bytes: bytes)
                    #expect(file.entries.allSatisfy { (1...lines).contains($0.line) }, "\(context)")
                    #expect(file.entries.map(\.line) == file.entries.map(\.line).sorted(), "\(context)")
                } catch {
                    #expect(!error.message.isEmpty && (error.line.map { (1...lines).contains($0) } ?? true), "\(error) — \(context)")
                }
                do throws(RecordingError) {
                    let parsed = try Self.chunked(bytes, &mutator)
                    #expect(parsed.entries.allSatisfy { (1...lines).contains($0.line) }, "\(context)")
                } catch {
                    #expect(!error.message.isEmpty && (error.line.map { (1...lines).contains($0) } ?? true), "\(error) — \(context)")
                }
            }
        }
    }

    /// A replay of a recording with mutated lines plays every valid line's feature, in order, and answers every line with an observation or an error.
    @Test func replayKeepsValidLines() async throws {
        try await FuzzRounds.run("recording replay", fixed: [0x5EC_31]) { seed in
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary)
            for _ in 0..<16 {
                let written = Self.write(count: mutator.int(2...30), mutating: 0.3, header: false, newlines: false, &mutator)
                let context = "\(FuzzRounds.label(seed)), mutated lines \(written.mutated.sorted())"
                let path = try Self.temporaryFile(written.bytes)
                defer { try? FileManager.default.removeItem(atPath: path) }
                let source: ReplaySource
                do {
                    source = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(), pacing: .asFastAsPossible, loop: false)
                } catch {
                    Issue.record("a recording with a valid header refused: \(error) — \(context)")
                    continue
                }
                let pipeline = StreamPipeline(purgeOptions: PurgeOptions(maximumDuration: 0, maximumObservations: 0), clock: ManualClock())
                let subscriber = Subscriber(name: "fuzz", filter: EventFilter(kinds: [.observation, .error, .response]))
                await pipeline.bus.subscribe(subscriber)
                let marker = ControlResponse(id: .string("replayed"), command: "marker", ok: true)
                let run = Task {
                    await source.run(into: pipeline)
                    await pipeline.publish(StreamEvent(time: 0, payload: .response(marker)))
                }
                var ids: [AttributeValue] = []
                var errors: [String] = []
                collecting: while let batch = await subscriber.next() {
                    for event in batch {
                        switch event.payload {
                        case .response(let response) where response.id == marker.id: break collecting
                        case .error(let report): errors.append(report.message)
                        default:
                            if let observation = event.observation {
                                let index = pipeline.schema.schema.fields.firstIndex { $0.name == "id" } ?? 0
                                ids.append(observation.attributes.indices.contains(index) ? observation.attributes[index] : .null)
                            }
                        }
                    }
                }
                await run.value
                await pipeline.close()
                // The valid lines' tracks, in order, among what played (a mutated line may play any track).
                let expected = written.valid.keys.sorted().map { AttributeValue.string("T\($0 - 2)") }
                var remaining = expected[...]
                for id in ids where id == remaining.first { remaining.removeFirst() }
                #expect(remaining.isEmpty, "valid lines lost or reordered: got \(ids), errors \(errors) — \(context)")
                #expect(ids.count + errors.count >= written.lineCount - 1 - written.blank.count, "a line with neither observation nor error: \(ids), \(errors) — \(context)")
            }
        }
    }
}
