import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "speed", type: .double)],
                            trackIDField: "id", startTimeField: "t")

/// The shared analysis session of the test support, with this file's schema and rows.
private typealias Harness = AnalysisHarness

extension AnalysisHarness {
    fileprivate init(options: PurgeOptions = PurgeOptions(maximumDuration: 0, maximumObservations: 0)) async {
        await self.init(schema: schema, options: options)
    }

    /// Rows of (track, time, speed) at one point, received now.
    fileprivate func ingest(_ rows: [(String, Int64, Double)]) async {
        await ingest(rows.map { row in
            Observation(geometry: Point(x: 1, y: 2, wkid: 4326),
                        attributes: [.string(row.0), .date(milliseconds: row.1), .double(row.2)], receivedAt: clock.now())
        })
    }

    /// Sends a command and returns its events up to its final line (or its refusal).
    fileprivate func run(_ line: String) async -> [StreamEvent] {
        await command(line)
    }
}

private func analyses(_ events: [StreamEvent]) -> [AnalysisEvent] {
    AnalysisHarness.analyses(events)
}

@Suite("query-observations over the store", .bounded(.io))
struct QueryObservationsTests {
    /// The extent selects by the service's time field, inclusive at both ends; order and limit apply; the summary says what matched.
    @Test func extentOrderAndLimit() async throws {
        let harness = await Harness()
        await harness.ingest([("A", 100, 1), ("B", 200, 2), ("A", 300, 3), ("C", 150, 4), ("B", 301, 5)])
        let events = analyses(await harness.run(#"{"id":1,"command":"query-observations","timeExtent":{"start":100,"end":300},"orderBy":"time DESC","limit":3}"#))
        #expect(events.map(\.phase) == [.accepted, .result, .result, .result, .summary])
        let speeds = events.compactMap { $0.feature?.attributes["speed"]?.doubleValue }
        #expect(speeds == [3, 2, 4])
        let summary = try #require(events.last)
        #expect(summary.members["matched"] == .int(4) && summary.members["count"] == .int(3) && summary.members["exceededLimit"] == .bool(true))
        #expect(summary.members["timeField"] == .string("t"))
        #expect(summary.members["stream"]?["status"] == .string("connected"))
        #expect(summary.members["stream"]?["observations"] == .int(5))
        #expect(events[1].members["track"] == .string("A"))
        await harness.close()
    }

    /// Where, track ids, out fields, count only and the receive time all work through the command.
    @Test func filtersAndCount() async throws {
        let harness = await Harness()
        await harness.ingest([("A", 100, 10), ("B", 200, 20)])
        harness.clock.advance(by: 1_000)
        await harness.ingest([("A", 300, 30), ("C", 400, 40)])
        let late = harness.clock.now()
        let filtered = analyses(await harness.run(
            #"{"id":2,"command":"query-observations","where":"speed >= 20","trackIds":["A","B"],"outFields":"speed"}"#))
        #expect(filtered.compactMap { $0.feature?.attributes["speed"]?.doubleValue } == [20, 30])
        #expect(filtered.compactMap { $0.feature?.attributes.keys } == [["speed"], ["speed"]])
        let received = analyses(await harness.run(
            #"{"id":3,"command":"query-observations","timeField":"received","timeExtent":{"start":\#(late)},"returnCountOnly":true}"#))
        #expect(received.last?.members["count"] == .int(2))
        #expect(received.filter { $0.phase == .result }.isEmpty)
        await harness.close()
    }

    /// Errors found against the schema end the job as failed, naming the field; a refused command is a response.
    @Test func errorsAreReadable() async throws {
        let harness = await Harness()
        await harness.ingest([("A", 100, 10)])
        let unknown = analyses(await harness.run(#"{"id":4,"command":"query-observations","where":"heading > 3"}"#))
        #expect(unknown.map(\.phase) == [.accepted, .failed])
        #expect(unknown.last?.members["error"]?.stringValue?.contains("heading") == true)
        let badTime = analyses(await harness.run(#"{"id":5,"command":"query-observations","timeField":"speed2"}"#))
        #expect(badTime.last?.members["error"]?.stringValue?.contains("unknown field 'speed2'") == true)
        let refused = await harness.run(#"{"id":6,"command":"query-observations","limit":-1}"#)
        guard case .response(let response) = refused.last?.payload else { Issue.record("no response"); return }
        #expect(!response.ok && response.id == .int(6))
        await harness.close()
    }

    /// Purged observations are gone: the query answers from what the store holds.
    @Test func purgedObservationsAreNotAnswered() async throws {
        let harness = await Harness(options: PurgeOptions(maximumDuration: 0, maximumObservations: 0, maximumObservationsPerTrack: 2))
        await harness.ingest((0..<10).map { ("A", Int64($0), Double($0)) })
        let events = analyses(await harness.run(#"{"id":7,"command":"query-observations"}"#))
        #expect(events.compactMap { $0.feature?.attributes["speed"]?.doubleValue } == [8, 9])
        await harness.close()
    }
}

/// A job that takes a snapshot, waits while the test ingests more, then scans its snapshot.
private struct SnapshotProbe: AnalysisJob {
    let taken: AsyncStreamBox<Int>
    let proceed: AsyncStreamBox<Void>
    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        let snapshot = try await context.snapshot()
        taken.yield(snapshot.contents.observationCount)
        _ = await proceed.next()
        return AnalysisSummary(TestReport(JSONObject([("scanned", .int(Int64(snapshot.contents.count(ObservationScan()))))])))
    }
}

@Suite("Analyses beside the stream", .bounded(.io))
struct AnalysisSnapshotTests {
    /// An analysis reads one consistent snapshot while the stream keeps ingesting.
    @Test func snapshotIsConsistentWhileIngesting() async throws {
        let harness = await Harness()
        await harness.ingest((0..<500).map { ("T\($0 % 7)", Int64($0), 1) })
        await harness.settle()
        let taken = AsyncStreamBox<Int>(), proceed = AsyncStreamBox<Void>()
        try await harness.runtime.start(SnapshotProbe(taken: taken, proceed: proceed), id: .int(1), command: "probe")
        let countAtSnapshot = await taken.next()
        for round in 0..<20 { await harness.ingest((0..<100).map { ("T\($0 % 11)", Int64(round * 100 + $0), 2) }) }
        proceed.yield(())
        var summary: AnalysisEvent?
        while summary == nil, let batch = await harness.subscriber.next() {
            summary = analyses(batch).first { $0.phase == .summary }
        }
        #expect(countAtSnapshot == 500)
        #expect(summary?.members["scanned"] == .int(500))
        #expect(await harness.pipeline.store.observationCount == 2_500)
        await harness.close()
    }
}
