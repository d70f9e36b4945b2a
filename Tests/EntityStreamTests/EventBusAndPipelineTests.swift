import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamLocking
import Testing
import EntityStreamModel

private func errorEvent(_ number: Int, producer: Int = 0) -> StreamEvent {
    StreamEvent(time: Int64(number), payload: .error(StreamErrorReport(source: .message, message: "\(producer)", count: number)))
}

@Suite("Event bus", .bounded)
struct EventBusTests {
    /// Several producers publishing at once: every subscriber sees every event once, each
    /// producer's events in its order, and all subscribers in the same overall order.
    @Test func severalProducersOneOrderForAll() async {
        let bus = EventBus(capacity: 500, byteLimit: 64 * 1024)
        let first = Subscriber(name: "a", capacity: 300)
        let second = Subscriber(name: "b", capacity: 300)
        await bus.subscribe(first)
        await bus.subscribe(second)
        let producers = 4, perProducer = 3_000
        async let publishing: Void = withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for start in stride(from: 0, to: perProducer, by: 25) {
                        await bus.publish((start..<start + 25).map { errorEvent($0, producer: producer) })
                    }
                }
            }
        }
        async let seenByFirst = Self.collect(first, count: producers * perProducer)
        async let seenBySecond = Self.collect(second, count: producers * perProducer)
        await publishing
        let (a, b) = await (seenByFirst, seenBySecond)
        #expect(a.count == producers * perProducer)
        #expect(a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1), "one order for every subscriber")
        for producer in 0..<producers {
            #expect(a.filter { $0.0 == "\(producer)" }.map(\.1) == Array(0..<perProducer))
        }
        await bus.close()
    }

    private static func collect(_ subscriber: Subscriber, count: Int) async -> [(String, Int)] {
        var seen: [(String, Int)] = []
        while seen.count < count, let batch = await subscriber.next() {
            for event in batch {
                if case .error(let report) = event.payload { seen.append((report.message, report.count)) }
            }
        }
        return seen
    }

    /// Before any subscriber, publishing never blocks (far beyond the queue's 16,384 events):
    /// the events are dropped and counted, and the first subscriber is told how many it missed.
    @Test func publishingBeforeTheFirstSubscriberDropsAndCounts() async {
        let bus = EventBus()
        for start in stride(from: 0, to: 40_000, by: 1_000) {
            await bus.publish((start..<start + 1_000).map { errorEvent($0) })
        }
        // The delivery task may still hold the last batches: publish a marker and wait for the count.
        let subscriber = Subscriber(name: "late")
        while bus.undeliveredCount < 40_000, !Task.isCancelled { await Task.yield() }
        await bus.subscribe(subscriber)
        await bus.publish(errorEvent(40_000))
        var received: [StreamEvent] = []
        while received.last?.time != 40_000, let batch = await subscriber.next() { received += batch }
        guard case .dropped(let count, _) = received.first?.payload else {
            Issue.record("expected a dropped event first, got \(received.map(\.kind))")
            return
        }
        #expect(count == 40_000)
        #expect(received.count == 2)
        await bus.close()
    }
}

@Suite("Stream pipeline", .bounded)
struct StreamPipelineTests {
    private static let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

    private static func observation(_ id: String, _ speed: Double, at time: Int64) -> StreamMessage {
        .observation(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string(id), .double(speed)], receivedAt: time))
    }

    /// Messages, events and schema changes handed over in one order reach subscribers in that order.
    @Test func keepsOrderAcrossKinds() async {
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: ManualClock())
        let subscriber = Subscriber(name: "all", filter: EventFilter(kinds: [.observation, .error]))
        await pipeline.bus.subscribe(subscriber)
        await pipeline.schemaChanged(Self.schema)
        await pipeline.receive([Self.observation("A", 1, at: 1)])
        await pipeline.report(.message, "between", count: 1)
        await pipeline.receive([Self.observation("B", 2, at: 2), Self.observation("A", 3, at: 3)])
        await pipeline.close()
        var kinds: [String] = []
        while let batch = await subscriber.next() {
            for event in batch {
                switch event.payload {
                case .error(let report): kinds.append(report.message)
                default: kinds.append(event.observation.map { "\($0.attributes[0])" } ?? "?")
                }
            }
        }
        #expect(kinds == ["string(\"A\")", "between", "string(\"B\")", "string(\"A\")"])
        #expect(await pipeline.store.observationCount == 3)
    }

    /// A pipeline released without close() ends its worker: the subscription drains and ends, nothing leaks.
    @Test func releasedPipelineEndsItsWorker() async {
        let subscriber = Subscriber(name: "last", filter: EventFilter(kinds: [.observation]))
        weak var released: StreamPipeline?
        do {
            let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: ManualClock())
            released = pipeline
            await pipeline.bus.subscribe(subscriber)
            await pipeline.schemaChanged(Self.schema)
            await pipeline.receive([Self.observation("A", 1, at: 1)])
        }
        var count = 0
        while let batch = await subscriber.next() { count += batch.count }
        #expect(count == 1)
        #expect(released == nil)
    }
}

/// A source status whose facts say `testing`: the `status` command writes the target's own facts.
private struct TestingStatus: SourceStatus {
    var status: StreamStatus { .replaying }
    var json: JSONObject { JSONObject([("status", .string("testing"))]) }
}

/// A control target that records what it was asked.
private final class RecordingTarget: ControlTarget, Sendable {
    let filters = LockedState<[StreamFilter]>([])
    func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
        filters.withLock { $0.append(filter) }
        return FilterOutcome(result: filter.whereClause == "reject" ? .rejected : .applied, requested: filter,
                             error: filter.whereClause == "reject" ? "refused by the test" : nil)
    }
    func sourceStatus() async -> any SourceStatus { TestingStatus() }
}

@Suite("Control command handler", .bounded)
struct ControlCommandHandlerTests {
    /// Each line is answered with a response carrying its id: results, and errors naming the problem.
    @Test func answersEveryLineWithItsID() async throws {
        let clock = ManualClock()
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: clock)
        let subscriber = Subscriber(name: "responses", filter: EventFilter(kinds: [.response]))
        await pipeline.bus.subscribe(subscriber)
        let target = RecordingTarget()
        let runtime = AnalysisRuntime(environment: AnalysisEnvironment(store: pipeline.store, streamStatus: { .replaying }, clock: clock)) {
            await pipeline.publish($0)
        }
        let handler = ControlCommandHandler(session: ControlSession(pipeline: pipeline, target: target, runtime: runtime))
        await handler.handle(line: Array(#"{"id":1,"command":"status"}"#.utf8))
        await handler.handle(line: Array(#"{"id":"f","command":"set-filter","filter":{"where":"speed > 1"}}"#.utf8))
        await handler.handle(line: Array(#"{"id":3,"command":"set-filter","filter":{"where":"reject"}}"#.utf8))
        await handler.handle(line: Array(#"{"id":4,"command":"no-such-thing"}"#.utf8))
        await handler.handle(line: Array("not json".utf8))
        await runtime.close()
        await pipeline.close()
        var responses: [ControlResponse] = []
        while let batch = await subscriber.next() {
            for event in batch { if case .response(let response) = event.payload { responses.append(response) } }
        }
        #expect(responses.map(\.id) == [.int(1), .string("f"), .int(3), .int(4), .null])
        #expect(responses.map(\.ok) == [true, true, false, false, false])
        #expect(responses[0].result?["status"]?.stringValue == "testing")
        #expect(responses[2].error == "refused by the test")
        #expect(responses[3].error?.contains("no-such-thing") == true)
        #expect(responses[4].error?.isEmpty == false)
        #expect(target.filters.withLock { $0.map(\.whereClause) } == ["speed > 1", "reject"])
    }
}
