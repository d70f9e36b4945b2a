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
        didSet { kindMask = Self.mask(kinds) }
    }
    public var whereClause: WhereClause?
    public var trackIDs: Set<AttributeValue>?
    /// `kinds` as bits (one per kind), tested for every event without hashing.
    private var kindMask: UInt32

    public init(kinds: Set<EventKind> = Set(EventKind.allCases), whereClause: WhereClause? = nil, trackIDs: Set<AttributeValue>? = nil) {
        self.kinds = kinds
        self.whereClause = whereClause
        self.trackIDs = trackIDs
        kindMask = Self.mask(kinds)
    }

    private static func mask(_ kinds: Set<EventKind>) -> UInt32 {
        kinds.reduce(0) { $0 | $1.bit }
    }

    /// Everything.
    public static let all = EventFilter()

    /// True when every event passes (every kind, no where clause, no track ids).
    public var acceptsEverything: Bool {
        whereClause == nil && trackIDs == nil && kinds.count == EventKind.allCases.count
    }

    public func accepts(_ event: StreamEvent) -> Bool {
        guard kindMask & event.kind.bit != 0 else { return false }
        if trackIDs == nil && whereClause == nil { return true }
        if let trackIDs, let entity = event.entity, !trackIDs.contains(entity.trackID) { return false }
        if let whereClause, let observation = event.observation, !whereClause.matches(observation) { return false }
        return true
    }
}

extension EventKind {
    /// One bit per kind, for masks.
    var bit: UInt32 {
        switch self {
        case .status: return 1 << 0
        case .observation: return 1 << 1
        case .entityReceived: return 1 << 2
        case .observationPurged: return 1 << 3
        case .entityPurged: return 1 << 4
        case .filter: return 1 << 5
        case .error: return 1 << 6
        case .response: return 1 << 7
        case .dropped: return 1 << 8
        case .analysis: return 1 << 9
        }
    }
}
