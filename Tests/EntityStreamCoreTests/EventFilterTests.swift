import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamWhere

private let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "speed", type: .double)], trackIDField: "id")

private func event(_ change: StoreEvent) -> StreamEvent { StreamEvent(time: 0, payload: .store(change)) }

@Suite("Event filters", .bounded)
struct EventFilterTests {
    /// The where clause tests the observation an event carries; purge events
    /// carry none and pass it, while the track-id filter still applies to them.
    @Test func whereClauseAppliesToCarriedObservationsOnly() throws {
        let filter = EventFilter(whereClause: try WhereClause("speed > 2", schema: schema), trackIDs: [.string("A")])
        let a = EntityReference(entityID: 1, trackID: .string("A"))
        let b = EntityReference(entityID: 2, trackID: .string("B"))
        let slow = Observation(geometry: nil, attributes: [.string("A"), .double(1)], receivedAt: 0)
        let fast = Observation(geometry: nil, attributes: [.string("A"), .double(5)], receivedAt: 0)

        #expect(filter.accepts(event(.observation(a, observationID: 1, fast))))
        #expect(!filter.accepts(event(.observation(a, observationID: 2, slow))))
        #expect(!filter.accepts(event(.entityReceived(a, observationID: 2, slow))))
        #expect(filter.accepts(event(.observationPurged(a, observationID: 2, receivedAt: 0, reason: .maximumDuration))))
        #expect(filter.accepts(event(.entityPurged(a, cause: .deleted))))
        #expect(!filter.accepts(event(.entityPurged(b, cause: .deleted))))
        #expect(filter.accepts(StreamEvent(time: 0, payload: .dropped(count: 1, total: 1))))
    }
}
