import EntityStreamModel
import EntityStreamWhere
/// Which entities a query wants, as the SDK's `DynamicEntityQueryParameters`:
/// a where clause, an envelope and/or track ids, all evaluated against each
/// entity's latest observation. Conditions combine with AND; nil means "any".
public struct EntityQuery: Sendable {
    public var whereClause: WhereClause?
    /// Entities whose latest point intersects it; WGS84 and Web Mercator
    /// points are converted into the envelope's spatial reference.
    public var envelope: Envelope?
    public var trackIDs: Set<AttributeValue>?

    public init(whereClause: WhereClause? = nil, envelope: Envelope? = nil, trackIDs: Set<AttributeValue>? = nil) {
        self.whereClause = whereClause
        self.envelope = envelope
        self.trackIDs = trackIDs
    }
}

/// One entity as a query returns it.
public struct EntitySnapshot: Sendable, Hashable {
    public var entity: EntityReference
    public var observationCount: Int
    public var latestObservationID: Int64
    public var latest: Observation
}
