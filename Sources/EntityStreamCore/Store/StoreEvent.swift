import EntityStreamModel
/// Which entity an event is about: its numeric runtime id and its track id.
public struct EntityReference: Sendable, Hashable {
    /// The runtime id (1, 2, 3, …), never reused within a store.
    public var entityID: Int64
    /// The value of the track-id field.
    public var trackID: AttributeValue

    public init(entityID: Int64, trackID: AttributeValue) {
        self.entityID = entityID
        self.trackID = trackID
    }
}

/// Which purge limit removed an observation.
public enum PurgeReason: String, Sendable, Hashable {
    case maximumDuration, maximumObservations, maximumObservationsPerTrack
    /// The store held more bytes than ``PurgeOptions/maximumStoreBytes``.
    case maximumStoreBytes
}

/// Why an entity left the store.
public enum EntityPurgeCause: String, Sendable, Hashable {
    /// Its last observation was purged by a limit.
    case lastObservationPurged
    /// `purgeAll` emptied the store.
    case purgeAll
    /// The service sent a `delete` message for its track.
    case deleted
}

/// What the entity store reports as it changes.
public enum StoreEvent: Sendable, Hashable {
    /// An observation whose track id matched no current entity created one.
    case entityReceived(EntityReference, observationID: Int64, Observation)
    /// An observation was stored (every observation, including an entity's first).
    case observation(EntityReference, observationID: Int64, Observation)
    /// A purge limit removed an observation.
    case observationPurged(EntityReference, observationID: Int64, receivedAt: Int64, reason: PurgeReason)
    /// An entity left the store.
    case entityPurged(EntityReference, cause: EntityPurgeCause)
}

extension StoreEvent {
    /// The bus event kind this store event becomes.
    public var kind: EventKind {
        switch self {
        case .entityReceived: return .entityReceived
        case .observation: return .observation
        case .observationPurged: return .observationPurged
        case .entityPurged: return .entityPurged
        }
    }
}
