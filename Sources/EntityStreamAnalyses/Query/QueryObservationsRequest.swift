import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere
import EntityStream

/// The parameters of a `query-observations` request as given (names, text),
/// checked against the store's schema when the job runs (fields are only
/// known then). A value type.
public struct QueryObservationsRequest: Sendable, Hashable {
    public var timeExtent: TimeExtent = .unbounded
    /// `received`, a field name, or nil for the service's start time field.
    public var timeField: String?
    public var whereClause: String?
    public var envelope: Envelope?
    public var trackIDs: Set<AttributeValue>?
    public var outFields: [String]?
    public var orderBy: String?
    public var limit: Int?
    public var countOnly = false

    public init() {}

    /// The query compiled against `schema`; throws ``AnalysisJobError`` naming
    /// an unknown field, a time field that holds no times, a bad clause
    /// (`.parameter("where", WhereClauseError)`), or the ``ObservationOrderError``
    /// of a bad order.
    public func compile(for schema: Schema) throws -> ObservationQuery {
        var scan = ObservationScan(timeExtent: timeExtent, envelope: envelope, trackIDs: trackIDs)
        scan.timeKey = try timeKey(schema)
        if let whereClause {
            do { scan.whereClause = try WhereClause(whereClause, schema: schema) } catch { throw AnalysisJobError.parameter("where", underlying: error) }
        }
        var query = ObservationQuery(scan: scan, limit: limit)
        if let orderBy {
            query.order = try ObservationOrder.parse(orderBy, schema: schema)
        }
        if let outFields {
            var indices: [Int] = []
            for name in outFields {
                guard let index = schema.index(ofField: name) else {
                    throw AnalysisJobError.unknownField(parameter: "outFields", name: name, known: schema.fields.map(\.name))
                }
                indices.append(index)
            }
            query.outFields = indices
        }
        return query
    }

    private func timeKey(_ schema: Schema) throws(AnalysisJobError) -> ObservationTimeKey {
        guard let timeField else { return .automatic(for: schema) }
        if timeField.lowercased() == "received" { return .received }
        guard let index = schema.index(ofField: timeField) else {
            throw .unknownTimeField(timeField, known: schema.fields.map(\.name))
        }
        let type = schema.fields[index].type
        guard type == .date || type.isInteger || type.isFloatingPoint else {
            throw .notTimeField(schema.fields[index].name, type: type)
        }
        return .field(start: index, end: index == schema.startTimeIndex ? schema.endTimeIndex : nil)
    }
}
