import EntityStreamModel
/// The extension point for statistics queries (`outStatistics`,
/// `groupByFieldsForStatistics`, `havingClause`, `returnDistinctValues`):
/// a ``FeatureQueryEngine`` given one hands it the rows that pass the
/// query's where clause, time, geometry and object ids, and writes what it
/// returns as an attributes-only FeatureSet. Without one, such queries are
/// refused with a clear 400 naming the parameter.
///
/// Implementations are pure and `Sendable`; throwing ``FeatureQueryError``
/// names the parameter at fault (an unknown statistic field, an `orderByFields`
/// entry that is neither a group field nor a statistic, …).
public protocol FeatureStatisticsEngine: Sendable {
    /// The statistics `query` asks for over `rows` (indices into `table`, in row order).
    func statistics(of table: FeatureTable, rows: [Int], query: FeatureQuery) throws(FeatureQueryError) -> FeatureStatisticsResult
    /// The same statistics computed over rows handed over in parts (a file
    /// read chunk by chunk, never held whole): nil when the engine computes
    /// only over one table (the default).
    func aggregation(for query: FeatureQuery, schema: Schema) throws(FeatureQueryError) -> (any FeatureStatisticsAggregation)?
}

extension FeatureStatisticsEngine {
    public func aggregation(for query: FeatureQuery, schema: Schema) throws(FeatureQueryError) -> (any FeatureStatisticsAggregation)? { nil }
}

/// A statistics query under way over rows handed over in parts, each the
/// selected rows of one table of the query's schema, in file order:
/// ``finish()`` answers what ``FeatureStatisticsEngine/statistics(of:rows:query:)``
/// answers over all of them at once (unpaged).
public protocol FeatureStatisticsAggregation: Sendable {
    /// Adds `rows` (indices into `table`) to the aggregates.
    mutating func add(_ table: FeatureTable, rows: [Int])
    /// The records (or the refusal, e.g. too many groups).
    func finish() throws(FeatureQueryError) -> FeatureStatisticsResult
}

/// What a statistics query answers: the output fields (group fields, then
/// statistics) and one row of values per group, in the order to send, and
/// whether more rows exist beyond this page (set by the ``FeatureQueryEngine``
/// when it pages the rows). A plain value.
public struct FeatureStatisticsResult: Sendable, Hashable {
    public var fields: [Field]
    public var rows: [[AttributeValue]]
    public var exceededTransferLimit: Bool

    public init(fields: [Field], rows: [[AttributeValue]], exceededTransferLimit: Bool = false) {
        self.fields = fields
        self.rows = rows
        self.exceededTransferLimit = exceededTransferLimit
    }
}
