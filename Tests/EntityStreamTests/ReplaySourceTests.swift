import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Writes Esri feature lines for track T1 (speed = 10·i, heading = i) to a temporary file.
private func featureFile(count: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).json").path
    let lines = (0..<count).map { index in
        #"{"geometry":{"x":-111.86,"y":40.57,"spatialReference":{"wkid":4326}},"attributes":{"id":"T1","speed":\#(10 * index),"heading":\#(index)}}"#
    }
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private func observations(_ subscriber: Subscriber, count: Int) async -> [Observation] {
    var result: [Observation] = []
    while result.count < count, let batch = await subscriber.next() { result += batch.compactMap(\.observation) }
    return result
}

@Suite("Replay source", .bounded)
struct ReplaySourceTests {
    /// A filter changed while replaying never reshapes the schema: values stay under their own fields.
    @Test func filterChangeKeepsValuesUnderTheirFields() async throws {
        let path = try featureFile(count: 4)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock()
        let source = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(outFields: ["speed"]),
                                              pacing: .interval(milliseconds: 100), loop: false)
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: clock)
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observation]))
        await pipeline.bus.subscribe(subscriber)
        let filters = FilterBox()
        let run = Task { await source.run(into: pipeline, filterUpdates: filters) }

        // Every message, the first included, waits its interval on the clock.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: 100)
        let first = await observations(subscriber, count: 1)
        let schema = pipeline.schema.schema
        #expect(schema.fields.map(\.name) == ["id", "speed", "heading"])
        #expect(first.map(\.attributes) == [[.string("T1"), .int(0), .null]])

        filters.set(StreamFilter(outFields: ["heading"], outSpatialReference: 3857))
        for _ in 0..<3 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: 100)
        }
        let rest = await observations(subscriber, count: 3)
        await run.value
        #expect(pipeline.schema.schema == schema)
        #expect(rest.map(\.attributes) == (1...3).map { [.string("T1"), .null, .int(Int64($0))] })
        #expect(rest.allSatisfy { $0.geometry?.wkid == 3857 })
        await pipeline.close()
    }

    /// However slow the speed is, a timed replay waits (until the end of year
    /// 9999, the last instant there is) instead of overflowing the clock: the
    /// first message plays, the next is due at the end of ``Instant/range``.
    @Test func tinySpeedWaitsInsteadOfOverflowing() async throws {
        var file = JSONWriter()
        let description = try JSONParser.parse(Array(#"{"fields":[{"name":"id"}],"timeInfo":{"trackIdField":"id"},"streamUrls":[{"transport":"ws","urls":["ws://h/s"]}]}"#.utf8))
        RecordingWriter.appendHeader(RecordingHeader(service: "http://h/StreamServer", startedAt: 0, description: description), to: &file)
        for (offset, x) in [(0, -111.9), (1000, -111.8)] {
            var message = #"{"geometry":{"x":\#(x),"y":40.6},"attributes":{"id":"T1"}}"#
            message.withUTF8 { RecordingWriter.appendLine(offsetMilliseconds: Int64(offset), message: UnsafeRawBufferPointer($0), to: &file) }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("slow-\(UUID().uuidString).json").path
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock()
        let source = try ReplaySource.prepare(path: path, trackIDField: nil, filter: StreamFilter(),
                                              pacing: .recordedTiming(speed: 1e-300), loop: false)
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: clock)
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observation]))
        await pipeline.bus.subscribe(subscriber)
        let start = clock.now()
        let run = Task { await source.run(into: pipeline) }
        #expect(await observations(subscriber, count: 1).count == 1)
        await clock.sleepers(atLeast: 1)
        #expect(start < Instant.range.upperBound)
        #expect(clock.nextDeadline == Instant.range.upperBound)
        run.cancel()
        await run.value
        await pipeline.close()
    }

    /// A malformed line of a recording streamed from disk is an `error` event
    /// (source `recording`, naming the file and line) in its place, and the
    /// replay goes on; the same bytes read into memory (as from stdin) play
    /// the same events.
    @Test func malformedRecordingLineIsAnErrorEventInPlace() async throws {
        let header = #"{"recording":"entitystream","version":1,"service":"http://h/StreamServer","startedAt":0,"description":{"fields":[{"name":"id"}],"timeInfo":{"trackIdField":"id"},"streamUrls":[{"transport":"ws","urls":["ws://h/s"]}]}}"#
        let lines = [
            header,
            #"{"t":0,"message":{"geometry":{"x":1,"y":2},"attributes":{"id":"A"}}}"#,
            #"{"t":0.5,"message":{"geometry":{"x":3,"y":4},"attributes":{"id":"X"}}}"#,
            #"{"t":20,"message":{"geometry":{"x":5,"y":6},"attributes":{"id":"B"}}}"#,
        ]
        let text = lines.joined(separator: "\n") + "\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-line-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        /// What a replay publishes: observation ids and error texts, in order.
        func play(_ source: ReplaySource) async -> [String] {
            let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: ManualClock())
            let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observation, .error]))
            await pipeline.bus.subscribe(subscriber)
            await source.run(into: pipeline)
            await pipeline.close()
            var seen: [String] = []
            while let batch = await subscriber.next() {
                for event in batch {
                    if let observation = event.observation, case .string(let id) = observation.attributes.first { seen.append(id) }
                    if case .error(let report) = event.payload { seen.append("\(report.source.rawValue): \(report.message)") }
                }
            }
            return seen
        }
        let streamed = await play(try ReplaySource.prepare(path: path, trackIDField: nil, filter: StreamFilter(),
                                                           pacing: .asFastAsPossible, loop: false))
        #expect(streamed.count == 3)
        #expect(streamed.first == "A" && streamed.last == "B")
        #expect(streamed.dropFirst().first?.hasPrefix("recording: \(path) line 3: \"t\" must be a whole number of milliseconds") == true,
                "\(streamed)")
        let inMemory = await play(try ReplaySource.prepare(bytes: Array(text.utf8), path: path, trackIDField: nil, filter: StreamFilter(),
                                                           pacing: .asFastAsPossible, loop: false))
        #expect(inMemory == streamed)
    }

    /// A file read as fast as possible is handed on in bounded batches (a
    /// 256 KiB chunk holds thousands of short lines): every observation
    /// still arrives once, in file order, and a bad line's error sits
    /// exactly between its neighbours, whichever batch they fall in.
    @Test func largeFilePlaysInOrderAcrossBatches() async throws {
        let count = 5000
        let badLine = 3001
        let lines = (1...count).map { number in
            number == badLine ? #"{"geometry":{"x":1,"y":2},"attributes":{"id":"#
                : #"{"geometry":{"x":1,"y":2},"attributes":{"id":"T\#(number)","n":\#(number)}}"#
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString).json").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let source = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(), pacing: .asFastAsPossible, loop: false)
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: ManualClock())
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observation, .error]))
        await pipeline.bus.subscribe(subscriber)
        let consumer = Task {
            var seen: [String] = []
            while let batch = await subscriber.next() {
                for event in batch {
                    if let observation = event.observation, case .int(let number) = observation.attribute(1) { seen.append(String(number)) }
                    if case .error(let report) = event.payload { seen.append("error line \(report.message.contains("line \(badLine):"))") }
                }
            }
            return seen
        }
        await source.run(into: pipeline)
        await pipeline.close()
        let seen = await consumer.value
        let expected = (1...count).map { $0 == badLine ? "error line true" : String($0) }
        #expect(seen.count == expected.count)
        #expect(seen == expected, "first difference at \(zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }

    /// An outSR PROJ does not know is refused by name before anything plays; one it knows is accepted.
    @Test func unknownOutSRIsRefused() throws {
        let path = try featureFile(count: 1)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(outSpatialReference: 99999),
                                     pacing: .asFastAsPossible, loop: false)
        } throws: { error in
            error is ReplayError && "\(error)".contains("99999")
        }
        _ = try ReplaySource.prepare(path: path, trackIDField: "id", filter: StreamFilter(outSpatialReference: 2230),
                                     pacing: .asFastAsPossible, loop: false)
    }
}
