import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

private func message(_ track: String, at time: Int64) -> StreamMessage {
    .observation(Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.string(track), .double(3)], receivedAt: time))
}

/// Collects everything a subscriber receives until `condition` holds.
private func collect(_ subscriber: Subscriber, until condition: ([StreamEvent]) -> Bool) async -> [StreamEvent] {
    var events: [StreamEvent] = []
    while !condition(events), let batch = await subscriber.next() { events += batch }
    return events
}

@Suite("Entity store actor and subscribers", .bounded)
struct EntityStoreActorTests {
    /// The age-purge timer, driven by the injected clock, purges with no new data arriving.
    @Test func timerPurgesWithoutNewData() async {
        let clock = ManualClock()
        let bus = EventBus()
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observationPurged, .entityPurged]), clock: clock)
        await bus.subscribe(subscriber)
        let store = EntityStore(schema: schema, options: PurgeOptions(maximumDuration: 5), bus: bus, clock: clock)
        await store.ingest([message("A", at: clock.now()), message("B", at: clock.now())])
        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == clock.now() + 5_001)
        clock.advance(by: 5_000)
        #expect(await store.observationCount == 2)
        clock.advance(by: 1)
        let events = await collect(subscriber) { $0.count >= 4 }
        #expect(events.map(\.kind) == [.observationPurged, .entityPurged, .observationPurged, .entityPurged])
        #expect(await store.entityCount == 0)
        await store.stop()
    }

    /// A primed batch's observation and entity-received events are marked primed through the pipeline; a live batch's are not.
    @Test func primedBatchesAreMarked() async {
        let clock = ManualClock()
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: clock)
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.observation, .entityReceived]), clock: clock)
        await pipeline.bus.subscribe(subscriber)
        await pipeline.schemaChanged(schema)
        await pipeline.receivePrimed([message("A", at: clock.now())])
        await pipeline.receive([message("A", at: clock.now()), message("B", at: clock.now())])
        let events = await collect(subscriber) { $0.count >= 5 }
        #expect(events.map(\.kind) == [.entityReceived, .observation, .observation, .entityReceived, .observation])
        #expect(events.map(\.primed) == [true, true, false, false, false])
        await pipeline.close()
    }

    /// With back-pressure, a slow consumer still receives every one of 200,000 events, in order.
    @Test func backPressureLosesNothing() async {
        let bus = EventBus(capacity: 1_000)
        let subscriber = Subscriber(name: "slow", capacity: 1_000, policy: .backPressure)
        await bus.subscribe(subscriber)
        let total = 200_000
        let producer = Task {
            for batchStart in stride(from: 0, to: total, by: 500) {
                let events = (batchStart..<(batchStart + 500)).map {
                    StreamEvent(time: Int64($0), payload: .error(StreamErrorReport(source: .message, message: "", count: $0)))
                }
                await bus.publish(events)
            }
        }
        var received = 0
        var inOrder = true
        var checksum: UInt64 = 0
        while received < total, let batch = await subscriber.next() {
            for event in batch {
                if event.time != Int64(received) { inOrder = false }
                received += 1
                for step in 0..<50 { checksum = checksum &* 31 &+ UInt64(step) }   // slow consumer
            }
        }
        await producer.value
        #expect(received == total)
        #expect(inOrder)
        #expect(subscriber.droppedTotal == 0)
        #expect(checksum != 1)
    }

    /// With drop-when-slow, the oldest queued events are dropped, counted exactly, and reported in a dropped event.
    @Test func dropWhenSlowCountsExactly() async {
        let subscriber = Subscriber(name: "dropping", capacity: 100, policy: .dropOldest)
        let events = (0..<250).map { StreamEvent(time: Int64($0), payload: .error(StreamErrorReport(source: .message, message: "", count: $0))) }
        await subscriber.deliver(Array(events[0..<150]))
        await subscriber.deliver(Array(events[150..<250]))
        let batch = await subscriber.next() ?? []
        guard case .dropped(let count, let total) = batch.first?.payload else {
            Issue.record("expected a dropped event first")
            return
        }
        #expect(count == 150)
        #expect(total == 150)
        #expect(batch.dropFirst().map(\.time) == Array(150..<250))
        #expect(subscriber.droppedTotal == 150)
    }

    /// Subscribers only see the kinds, tracks and where-matching observations they asked for.
    @Test func subscriberFiltersEvents() async throws {
        let clock = ManualClock()
        let bus = EventBus()
        let fast = try WhereClause("speed > 2", schema: schema)
        let onlyA = Subscriber(name: "A", filter: EventFilter(kinds: [.observation], trackIDs: [.string("A")]), clock: clock)
        let quick = Subscriber(name: "fast", filter: EventFilter(kinds: [.observation], whereClause: fast), clock: clock)
        await bus.subscribe(onlyA)
        await bus.subscribe(quick)
        let store = EntityStore(schema: schema, options: PurgeOptions(), bus: bus, clock: clock)
        await store.ingest([message("A", at: 0), message("B", at: 0),
                            .observation(Observation(geometry: nil, attributes: [.string("A"), .double(1)], receivedAt: 0))])
        let a = await collect(onlyA) { $0.count >= 2 }
        #expect(a.compactMap { $0.entity?.trackID } == [.string("A"), .string("A")])
        let q = await collect(quick) { $0.count >= 2 }
        #expect(q.compactMap { $0.observation?.attribute(1) } == [.double(3), .double(3)])
        await store.stop()
    }

    /// Non-point features and observations without a track id are not stored; each is reported as an error
    /// of source `store`, counted in one sequence.
    @Test func unusableFeaturesAreReportedNotStored() async {
        let bus = EventBus()
        let subscriber = Subscriber(name: "all", filter: EventFilter(kinds: [.error, .entityReceived]))
        await bus.subscribe(subscriber)
        let store = EntityStore(schema: schema, options: PurgeOptions(), bus: bus, clock: ManualClock())
        let untracked = Observation(geometry: Point(x: 1, y: 2, wkid: 4326), attributes: [.null, .double(3)], receivedAt: 0)
        await store.ingest([.nonPointGeometry(kind: "polygon", Observation(geometry: nil, attributes: [.string("P"), .null], receivedAt: 0)),
                            .observation(untracked), .observation(untracked), message("A", at: 0)])
        let events = await collect(subscriber) { $0.count >= 4 }
        let errors = events.compactMap { event -> StreamErrorReport? in
            if case .error(let report) = event.payload { return report } else { return nil }
        }
        #expect(errors.map(\.source) == [.store, .store, .store])
        #expect(errors.map(\.count) == [1, 2, 3], "one count per source")
        #expect(errors[0].message.contains("polygon") && errors[0].message.contains("track P"))
        #expect(errors[1].message.contains("'id'"))
        #expect(events.last?.kind == .entityReceived)
        #expect(await store.entityCount == 1)
        #expect(await store.observationCount == 1)
        await store.stop()
    }

    /// A delete message removes the entity and its whole history, published as an entity-purged event.
    @Test func deleteRemovesTheEntity() async {
        let bus = EventBus()
        let subscriber = Subscriber(name: "purges", filter: EventFilter(kinds: [.entityPurged]))
        await bus.subscribe(subscriber)
        let store = EntityStore(schema: schema, options: PurgeOptions(), bus: bus, clock: ManualClock())
        await store.ingest([message("A", at: 0), message("A", at: 1), message("B", at: 1)])
        await store.ingest([.delete(Observation(geometry: nil, attributes: [.string("A"), .null], receivedAt: 2))])
        let events = await collect(subscriber) { $0.count >= 1 }
        #expect(events.compactMap { $0.entity?.trackID } == [.string("A")])
        #expect(await store.entityCount == 1)
        #expect(await store.observationCount == 1)
        await store.stop()
    }

    /// After a delete removes the track holding the oldest observations, the
    /// running age-purge timer is kept (a timer is only restarted for an
    /// earlier expiry): it wakes at its deadline, finds nothing expired,
    /// sleeps on until the next live observation expires, and then purges
    /// exactly that one.
    @Test func timerAfterDeleteTargetsNextLiveObservation() async {
        let clock = ManualClock()
        let start = clock.now()
        let bus = EventBus()
        let subscriber = Subscriber(name: "purges", filter: EventFilter(kinds: [.observationPurged, .entityPurged]), clock: clock)
        await bus.subscribe(subscriber)
        let store = EntityStore(schema: schema, options: PurgeOptions(maximumDuration: 5), bus: bus, clock: clock)
        await store.ingest([message("A", at: start), message("A", at: start)])
        clock.advance(by: 1_000)
        await store.ingest([message("B", at: start + 1_000)])
        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == start + 5_001)
        await store.ingest([.delete(Observation(geometry: nil, attributes: [.string("A"), .null], receivedAt: start + 1_000))])
        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == start + 5_001)
        clock.advance(to: start + 5_001)
        await clock.sleepers(atLeast: 1)
        #expect(clock.nextDeadline == start + 6_001)
        #expect(await store.observationCount == 1)
        clock.advance(to: start + 6_000)
        #expect(await store.observationCount == 1)
        clock.advance(by: 1)
        let events = await collect(subscriber) { $0.count >= 3 }
        let described = events.map { event -> String in
            guard case .store(let change) = event.payload else { return "other" }
            switch change {
            case .observationPurged(let entity, _, let receivedAt, let reason):
                return "purged \(entity.trackID) at \(receivedAt - start) \(reason.rawValue)"
            case .entityPurged(let entity, let cause): return "gone \(entity.trackID) \(cause.rawValue)"
            default: return "other"
            }
        }
        #expect(described == ["gone \(AttributeValue.string("A")) deleted",
                              "purged \(AttributeValue.string("B")) at 1000 maximumDuration",
                              "gone \(AttributeValue.string("B")) lastObservationPurged"])
        #expect(await store.entityCount == 0)
        #expect(clock.sleeperCount == 0)
        await store.stop()
    }

    /// A bus released without close() still delivers what was published, then ends its subscriptions (and is freed).
    @Test func releasedBusDeliversThenEndsSubscriptions() async {
        let subscriber = Subscriber(name: "last")
        weak var released: EventBus?
        do {
            let bus = EventBus()
            released = bus
            await bus.subscribe(subscriber)
            await bus.publish((0..<3).map { StreamEvent(time: Int64($0), payload: .error(StreamErrorReport(source: .message, message: "", count: $0))) })
        }
        var times: [Int64] = []
        while let batch = await subscriber.next() { times += batch.map(\.time) }
        #expect(times == [0, 1, 2])
        #expect(released == nil)
    }
}
