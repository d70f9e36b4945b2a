import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

/// 300 observations over 7 tracks, enough to purge per track and overall,
/// after 10 of a track that then falls silent (so its entity is purged).
private let messages: [StreamMessage] = (0..<300).map { index in
    .observation(Observation(geometry: Point(x: Double(index), y: 2, wkid: 4326),
                             attributes: [.string(index < 10 ? "OLD" : "T\(index * 5 % 7)"), .double(Double(index))],
                             receivedAt: Int64(index)))
}

/// What identifies an event here: its kind, entity and observation ids.
private func summary(_ events: [StreamEvent]) -> [String] {
    events.map { event in
        var observationID: Int64?
        if case .store(let store) = event.payload {
            switch store {
            case .entityReceived(_, let id, _), .observation(_, let id, _), .observationPurged(_, let id, _, _): observationID = id
            case .entityPurged: observationID = nil
            }
        }
        return "\(event.kind.rawValue) \(event.entity?.entityID ?? 0) \(observationID ?? 0)"
    }
}

/// Everything `subscriber` receives until its subscription ends.
private func drain(_ subscriber: Subscriber) async -> [StreamEvent] {
    var events: [StreamEvent] = []
    while let batch = await subscriber.next() { events += batch }
    return events
}

@Suite("The store makes only the event kinds some subscriber wants", .bounded)
struct WantedEventKindsTests {
    /// The bus reports the union of its subscribers' kinds, and every kind
    /// while nobody subscribes (so that undelivered events are still counted).
    @Test func busWantsTheUnionOfItsSubscribers() async {
        let bus = EventBus()
        #expect(bus.wantedKinds == .all)
        let first = Subscriber(name: "first", filter: EventFilter(kinds: [.observation]))
        let second = Subscriber(name: "second", filter: EventFilter(kinds: [.status, .observationPurged]))
        await bus.subscribe(first)
        #expect(bus.wantedKinds == EventKindMask([.observation]))
        await bus.subscribe(second)
        #expect(bus.wantedKinds == EventKindMask([.observation, .status, .observationPurged]))
        await bus.unsubscribe(first)
        #expect(bus.wantedKinds == EventKindMask([.status, .observationPurged]))
        await bus.unsubscribe(second)
        #expect(bus.wantedKinds == .all)
    }

    /// A subscriber that wants observations and entity purges receives
    /// exactly those events of a run in which everything was made (same
    /// ids, same order), and the store ends up holding the same.
    @Test func leavingKindsOutChangesNothingElse() async {
        let options = PurgeOptions(maximumObservations: 20, maximumObservationsPerTrack: 4)
        let kinds: Set<EventKind> = [.observation, .entityPurged]
        var received: [[StreamEvent]] = []
        var counts: [(Int, Int)] = []
        for filter in [EventFilter.all, EventFilter(kinds: kinds)] {
            let clock = ManualClock()
            let bus = EventBus()
            let subscriber = Subscriber(name: "test", filter: filter, clock: clock)
            await bus.subscribe(subscriber)
            let store = EntityStore(schema: schema, options: options, bus: bus, clock: clock)
            for start in stride(from: 0, to: messages.count, by: 50) {
                await store.ingest(Array(messages[start..<min(start + 50, messages.count)]))
            }
            counts.append((await store.entityCount, await store.observationCount))
            await store.stop()
            await bus.close()
            received.append(await drain(subscriber))
        }
        let everything = received[0]
        #expect(Set(everything.map(\.kind)).isSuperset(of: [.observation, .entityReceived, .observationPurged, .entityPurged]))
        #expect(summary(received[1]) == summary(everything.filter { kinds.contains($0.kind) }))
        #expect(counts[0] == counts[1])
    }

    /// The state alone: events outside the mask are not made, the others are
    /// exactly those of an unmasked run, and the contents are the same.
    @Test func stateLeavesOutOnlyUnwantedKinds() {
        let options = PurgeOptions(maximumObservations: 20, maximumObservationsPerTrack: 4)
        let wanted: Set<EventKind> = [.entityReceived, .observationPurged]
        var full = EntityStoreState(schema: schema, options: options)
        var masked = EntityStoreState(schema: schema, options: options)
        var fullEvents: [StreamEvent] = []
        var maskedEvents: [StreamEvent] = []
        for case .observation(let observation) in messages {
            full.ingest(observation, now: observation.receivedAt, into: &fullEvents)
            masked.ingest(observation, now: observation.receivedAt, wanted: EventKindMask(wanted), into: &maskedEvents)
        }
        #expect(summary(maskedEvents) == summary(fullEvents.filter { wanted.contains($0.kind) }))
        #expect(!maskedEvents.isEmpty && maskedEvents.count < fullEvents.count)
        #expect(masked.entityCount == full.entityCount && masked.observationCount == full.observationCount)
    }
}
