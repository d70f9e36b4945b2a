import EntityStreamModel
import EntityStreamWhere
/// The entities' latest observations, as the SDK's dynamic entities are
/// queried (each entity counts once, with its current state).
extension StoreContents {
    /// Visits, in entity-id order, every entity matching `query` (where
    /// clause, envelope and track ids on its latest observation, as
    /// ``EntityStoreState/query(_:)``) whose latest observation also lies in
    /// `timeExtent` on `timeKey` (inclusive; with an end field, an interval
    /// that overlaps; an observation without a time matches only an
    /// unbounded extent), until `visit` returns false. Returns the number of
    /// entities visited.
    @discardableResult
    public func latestObservations(matching query: EntityQuery, timeExtent: TimeExtent = .unbounded, timeKey: ObservationTimeKey = .received,
                                   _ visit: (EntitySnapshot) throws -> Bool) rethrows -> Int {
        var slots: [Int] = []
        for slot in entities.indices where entities[slot].isLive { slots.append(slot) }
        slots.sort { entities[$0].reference.entityID < entities[$1].reference.entityID }
        var visited = 0
        try strings.withUnsafeBufferPointer { strings in
            for slot in slots {
                let entity = entities[slot]
                if let trackIDs = query.trackIDs, !trackIDs.contains(entity.reference.trackID) { continue }
                let latest = entity.latest(strings: strings)
                if let envelope = query.envelope {
                    guard let point = latest.geometry, envelope.contains(point, assuming: nil) else { continue }
                }
                if !timeExtent.isUnbounded {
                    switch timeKey {
                    case .received:
                        if !timeExtent.contains(latest.receivedAt) { continue }
                    case .field(let start, let end):
                        guard let from = EntityStoreState.milliseconds(latest.attribute(start)) else { continue }
                        var to = from
                        if let end, let until = EntityStoreState.milliseconds(latest.attribute(end)) { to = max(until, from) }
                        if !timeExtent.overlaps(from: from, to: to) { continue }
                    }
                }
                if let whereClause = query.whereClause, !whereClause.matches(latest) { continue }
                visited += 1
                let snapshot = EntitySnapshot(entity: entity.reference, observationCount: entity.history.count,
                                              latestObservationID: entity.latestID, latest: latest)
                if try !visit(snapshot) { break }
            }
        }
        return visited
    }
}
