import EntityStreamModel
import EntityStreamWhere
/// Which events one subscriber wants: by kind, by track id for events about
/// an entity, and by where clause for events that carry an observation
/// (`observation`, `entity-received`), tested on that observation.
///
/// Purge events (`observation-purged`, `entity-purged`) carry no
/// observation, so the where clause lets them all through; the kind and
/// track-id filters still apply to them. Events not about an entity
/// (status, filter, error, response, dropped) pass whenever their kind is
/// wanted. A value type.
public struct EventFilter: Sendable {
    public var kinds: Set<EventKind> {
        didSet { kindMask = EventKindMask(kinds) }
    }
    public var whereClause: WhereClause?
    public var trackIDs: Set<AttributeValue>?
    /// `kinds` as bits, tested for every event without hashing.
    public private(set) var kindMask: EventKindMask

    public init(kinds: Set<EventKind> = Set(EventKind.allCases), whereClause: WhereClause? = nil, trackIDs: Set<AttributeValue>? = nil) {
        self.kinds = kinds
        self.whereClause = whereClause
        self.trackIDs = trackIDs
        kindMask = EventKindMask(kinds)
    }

    /// Everything.
    public static let all = EventFilter()

    /// True when every event passes (every kind, no where clause, no track ids).
    public var acceptsEverything: Bool {
        whereClause == nil && trackIDs == nil && kinds.count == EventKind.allCases.count
    }

    public func accepts(_ event: StreamEvent) -> Bool {
        guard kindMask.contains(event.kind) else { return false }
        if trackIDs == nil && whereClause == nil { return true }
        if let trackIDs, let entity = event.entity, !trackIDs.contains(entity.trackID) { return false }
        if let whereClause, let observation = event.observation, !whereClause.matches(observation) { return false }
        return true
    }

    /// ``accepts(_:)`` for `events[index]`, read in place: a filter by kind
    /// alone reads only the stored kind (handing the event to a function
    /// copies it, a retain and a release of every reference it holds).
    public func accepts(_ events: UnsafeBufferPointer<StreamEvent>, at index: Int) -> Bool {
        if trackIDs == nil && whereClause == nil { return kindMask.contains(events[index].kind) }
        return accepts(events[index])
    }
}
