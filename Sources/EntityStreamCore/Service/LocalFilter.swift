import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere

/// A ``StreamFilter`` evaluated in-process, for sources that cannot filter
/// themselves (replays) and for the simulator's per-subscriber filters.
///
/// Compiling checks everything up front: the where clause against the
/// schema (``WhereClauseError`` with its position), the `outFields` names
/// (``FilterError`` naming an unknown field), and the envelope's spatial
/// reference and the `outSR` (``FilterError`` when PROJ does not know one or
/// cannot transform from the source's). ``accepts(_:)`` applies the where
/// clause and the envelope (a point intersects when inside or on the
/// boundary, converted into the envelope's spatial reference). Two shapes of
/// result, both with the geometry in `outSR`:
/// - ``masked(_:)`` keeps the source schema's alignment and sets the fields
///   outside `outFields` to null, so the schema never changes with the
///   filter (what a store and its output need);
/// - ``projected(_:)`` keeps only the `outFields` (and the track id), aligned
///   to ``projectedSchema`` (what a service sends).
/// A value type.
public struct LocalFilter: Sendable {
    public let filter: StreamFilter
    /// The schema of ``projected(_:)`` observations: the kept fields in source order.
    public let projectedSchema: Schema
    private let whereClause: WhereClause?
    private let keptFields: [Int]?
    /// The spatial reference of points that carry none.
    private let assumedReference: Int?
    private let outputReference: SpatialReference?

    /// `spatialReference` is the source's (the service's) spatial reference,
    /// for points that do not name theirs.
    public init(_ filter: StreamFilter, schema: Schema, spatialReference: Int? = nil) throws(LocalFilterError) {
        self.filter = filter
        assumedReference = spatialReference
        let source = SpatialReference(code: spatialReference)
        if let outSR = SpatialReference(code: filter.outSpatialReference) {
            do throws(ProjectionError) {
                if let source { try CoordinateOperations.check(from: source, to: outSR) } else { try outSR.validate() }
            } catch {
                throw .filter(.outSpatialReferenceUnusable(error))
            }
            outputReference = outSR == source ? nil : outSR
        } else {
            outputReference = nil
        }
        if let envelopeReference = SpatialReference(code: filter.geometry?.wkid) {
            do throws(ProjectionError) {
                if let source { try CoordinateOperations.check(from: source, to: envelopeReference) } else { try envelopeReference.validate() }
            } catch {
                throw .filter(.geometrySpatialReferenceUnusable(error))
            }
        }
        if let text = filter.effectiveWhereClause {
            do { whereClause = try WhereClause(text, schema: schema) } catch { throw .whereClause(error) }
        } else {
            whereClause = nil
        }
        guard let outFields = filter.outFields else {
            keptFields = nil
            projectedSchema = schema
            return
        }
        var kept = Set<Int>()
        for name in outFields {
            guard let index = schema.index(ofField: name) else {
                throw .filter(.unknownOutField(name, fields: schema.fields.map(\.name)))
            }
            kept.insert(index)
        }
        if let track = schema.trackIDIndex { kept.insert(track) }
        let ordered = kept.sorted()
        keptFields = ordered
        var projected = Schema(fields: ordered.map { schema.fields[$0] })
        if let track = schema.trackIDIndex { projected.trackIDIndex = ordered.firstIndex(of: track) }
        if let start = schema.startTimeIndex { projected.startTimeIndex = ordered.firstIndex(of: start) }
        if let end = schema.endTimeIndex { projected.endTimeIndex = ordered.firstIndex(of: end) }
        projectedSchema = projected
    }

    /// True when every observation passes unchanged.
    public var isPassThrough: Bool { whereClause == nil && filter.geometry == nil && keptFields == nil && outputReference == nil }

    /// True when `observation` passes the where clause and the envelope.
    public func accepts(_ observation: Observation) -> Bool {
        if let envelope = filter.geometry {
            guard let point = observation.geometry, envelope.contains(point, assuming: assumedReference) else { return false }
        }
        if let whereClause, !whereClause.matches(observation) { return false }
        return true
    }

    /// `observation` in the source schema's alignment, with the fields
    /// outside `outFields` null and the geometry in `outSR`.
    public func masked(_ observation: Observation) -> Observation {
        var result = converted(observation)
        guard let keptFields else { return result }
        var attributes = [AttributeValue](repeating: .null, count: observation.attributeCount)
        for index in keptFields where index < attributes.count { attributes[index] = observation.attribute(index) }
        result.attributes = attributes
        return result
    }

    /// `observation` with only the kept fields (aligned to ``projectedSchema``)
    /// and the geometry in `outSR`.
    public func projected(_ observation: Observation) -> Observation {
        var result = converted(observation)
        if let keptFields { result.attributes = keptFields.map { observation.attribute($0) } }
        return result
    }

    private func converted(_ observation: Observation) -> Observation {
        guard let outputReference, let point = observation.geometry else { return observation }
        var result = observation
        // A point PROJ cannot transform (outside the projection's domain) has no place in outSR.
        result.geometry = try? point.converted(to: outputReference, assuming: SpatialReference(code: assumedReference))
        return result
    }
}
