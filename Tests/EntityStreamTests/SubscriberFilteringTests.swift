import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

/// What a subscriber queues from the batches it is handed: exactly the events
/// its filter takes, in order, whether it takes a whole batch (queued as it
/// is) or part of one. The oracle is the test's own reading of each event.
@Suite("Subscriber filtering", .bounded)
struct SubscriberFilteringTests {
    private static let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

    /// The kind, read by the test from the payload.
    private static func kind(_ event: StreamEvent) -> EventKind {
        switch event.payload {
        case .status: return .status
        case .store(let store):
            switch store {
            case .entityReceived: return .entityReceived
            case .observation: return .observation
            case .observationPurged: return .observationPurged
            case .entityPurged: return .entityPurged
            }
        case .filter: return .filter
        case .error: return .error
        case .response: return .response
        case .dropped: return .dropped
        case .analysis: return .analysis
        }
    }

    /// A seeded mix of observation, entity-received, purge and error events.
    private static func events(count: Int, seed: UInt64) -> [StreamEvent] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let track = "T\(Int.random(in: 0..<5, using: &generator))"
            let reference = EntityReference(entityID: Int64(track.dropFirst())!, trackID: .string(track))
            let observation = Observation(geometry: Point(x: Double(index), y: 1),
                                          attributes: [.string(track), .double(Double(Int.random(in: 0..<10, using: &generator)))],
                                          receivedAt: Int64(index))
            let payload: StreamEvent.Payload
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: payload = .store(.entityReceived(reference, observationID: Int64(index), observation))
            case 1: payload = .store(.observationPurged(reference, observationID: Int64(index), receivedAt: 0, reason: .maximumObservations))
            case 2: payload = .error(StreamErrorReport(source: .store, message: "e\(index)", count: index))
            default: payload = .store(.observation(reference, observationID: Int64(index), observation))
            }
            return StreamEvent(time: Int64(index), payload: payload)
        }
    }

    private static func queued(by filter: EventFilter, from batches: [[StreamEvent]]) async -> [StreamEvent] {
        let subscriber = Subscriber(name: "test", filter: filter)
        for batch in batches { await subscriber.deliver(batch) }
        subscriber.finish()
        var all: [StreamEvent] = []
        while let batch = await subscriber.next() { all += batch }
        return all
    }

    private static func summary(_ events: [StreamEvent]) -> [String] {
        events.map { "\($0.time) \(kind($0)) \($0.entity.map { "\($0.trackID)" } ?? "-")" }
    }

    @Test func queuesWhatTheFilterTakesInOrder() async throws {
        let speedy = try WhereClause("speed > 4", schema: Self.schema)
        let filters: [EventFilter] = [
            EventFilter(kinds: [.observation]),
            EventFilter(kinds: [.observation, .error]),
            EventFilter(kinds: [.entityReceived, .observationPurged]),
            EventFilter(kinds: [.observation], whereClause: speedy),
            EventFilter(kinds: [.observation, .observationPurged], trackIDs: [.string("T1"), .string("T3")]),
        ]
        for seed in UInt64(1)...4 {
            let events = Self.events(count: 600, seed: seed)
            // Whole batches of one kind (taken or refused whole) and mixed ones.
            let observationsOnly = events.filter { Self.kind($0) == .observation }
            let batches = [Array(events[0..<200]), observationsOnly, Array(events[200..<600]), []]
            for filter in filters {
                let expected = batches.joined().filter { event in
                    guard filter.kinds.contains(Self.kind(event)) else { return false }
                    if let trackIDs = filter.trackIDs, let entity = event.entity, !trackIDs.contains(entity.trackID) { return false }
                    if filter.whereClause != nil, case .store(let store) = event.payload {
                        switch store {
                        case .observation(_, _, let observation), .entityReceived(_, _, let observation):
                            guard case .double(let speed) = observation.attributes[1], speed > 4 else { return false }
                        default: break
                        }
                    }
                    return true
                }
                let queued = await Self.queued(by: filter, from: batches)
                #expect(Self.summary(queued) == Self.summary(expected), "filter kinds \(filter.kinds.sorted { $0.rawValue < $1.rawValue }), seed \(seed)")
            }
        }
    }

    @Test func kindFollowsThePayload() {
        let reference = EntityReference(entityID: 1, trackID: .string("A"))
        let observation = Observation(geometry: nil, attributes: [.string("A")], receivedAt: 5)
        var event = StreamEvent(time: 5, payload: .store(.observation(reference, observationID: 1, observation)))
        #expect(event.kind == .observation)
        event.payload = .store(.entityPurged(reference, cause: .deleted))
        #expect(event.kind == .entityPurged)
        event.payload = .dropped(count: 1, total: 2)
        #expect(event.kind == .dropped)
        event.payload = .store(.entityReceived(reference, observationID: 1, observation))
        #expect(event.kind == .entityReceived)
    }
}
