/// A ``StreamFilter`` evaluated in-process, for sources that cannot filter
/// themselves (replays) and for the simulator's per-subscriber filters.
///
/// Compiling checks everything up front: the where clause against the
/// schema (``WhereClauseError`` with its position) and the `outFields` names
/// (``FilterError`` naming an unknown field). ``accepts(_:)`` applies the
/// where clause and the envelope (a point intersects when inside or on the
/// boundary); ``project(_:)`` keeps only the `outFields` (and the track id).
/// A value type.
public struct LocalFilter: Sendable {
    public let filter: StreamFilter
    public let sourceSchema: Schema
    /// The schema of projected observations.
    public let schema: Schema
    private let whereClause: WhereClause?
    private let keptFields: [Int]?

    public init(_ filter: StreamFilter, schema: Schema) throws(LocalFilterError) {
        self.filter = filter
        self.sourceSchema = schema
        if let text = filter.effectiveWhereClause {
            do { whereClause = try WhereClause(text, schema: schema) } catch { throw .whereClause(error) }
        } else {
            whereClause = nil
        }
        guard let outFields = filter.outFields else {
            keptFields = nil
            self.schema = schema
            return
        }
        var kept = Set<Int>()
        for name in outFields {
            guard let index = schema.index(ofField: name) else {
                throw .filter(FilterError("unknown field '\(name)' in outFields (fields: \(schema.fields.map(\.name).joined(separator: ", ")))"))
            }
            kept.insert(index)
        }
        if let track = schema.trackIDIndex { kept.insert(track) }
        let ordered = kept.sorted()
        keptFields = ordered
        var projected = Schema(fields: ordered.map { schema.fields[$0] })
        if let track = schema.trackIDIndex { projected.trackIDIndex = ordered.firstIndex(of: track) }
        self.schema = projected
    }

    /// True when nothing is filtered or projected.
    public var isPassThrough: Bool { whereClause == nil && filter.geometry == nil && keptFields == nil }

    /// True when `observation` passes the where clause and the envelope.
    public func accepts(_ observation: Observation) -> Bool {
        if let envelope = filter.geometry {
            guard let point = observation.geometry, envelope.contains(Self.inEnvelopeReference(point, envelope)) else { return false }
        }
        if let whereClause, !whereClause.matches(observation) { return false }
        return true
    }

    /// `observation` with only the kept fields (unchanged without `outFields`).
    public func project(_ observation: Observation) -> Observation {
        guard let keptFields else { return observation }
        var projected = observation
        projected.attributes = keptFields.map { observation.attribute($0) }
        return projected
    }

    /// The point in the envelope's spatial reference when one is WGS84 and
    /// the other Web Mercator; unchanged otherwise.
    static func inEnvelopeReference(_ point: Point, _ envelope: Envelope) -> Point {
        guard let pointWKID = point.wkid, let envelopeWKID = envelope.wkid, pointWKID != envelopeWKID else { return point }
        if envelopeWKID == 4326 && WebMercator.wkids.contains(pointWKID) { return WebMercator.unproject(point) }
        if pointWKID == 4326 && WebMercator.wkids.contains(envelopeWKID) { return WebMercator.project(point) }
        return point
    }
}
