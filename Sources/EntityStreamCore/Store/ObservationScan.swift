import EntityStreamModel
import EntityStreamWhere
/// Which stored observations a scan visits: a time extent on a time key, a
/// where clause, an envelope and track ids — all optional, combined with
/// AND, evaluated on each observation (not only an entity's latest).
///
/// Time follows ArcGIS's `esriTimeRelationOverlaps` (``TimeExtent``):
/// inclusive at both ends; with an end field, an observation is the
/// interval `[start, end]` (a null end means an instant at the start);
/// an observation without a start time matches only an unbounded extent.
/// The envelope is in its own spatial reference; WGS84 and Web Mercator
/// points are converted into it as ``Envelope/contains(_:assuming:)`` does.
public struct ObservationScan: Sendable {
    public var timeExtent: TimeExtent
    public var timeKey: ObservationTimeKey
    public var whereClause: WhereClause?
    public var envelope: Envelope?
    public var trackIDs: Set<AttributeValue>?

    public init(timeExtent: TimeExtent = .unbounded, timeKey: ObservationTimeKey = .received, whereClause: WhereClause? = nil,
                envelope: Envelope? = nil, trackIDs: Set<AttributeValue>? = nil) {
        self.timeExtent = timeExtent
        self.timeKey = timeKey
        self.whereClause = whereClause
        self.envelope = envelope
        self.trackIDs = trackIDs
    }
}
