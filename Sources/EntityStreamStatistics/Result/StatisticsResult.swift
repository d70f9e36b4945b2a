import EntityStreamModel
/// What ``StatisticsAccumulator/finish()`` produces: the records, and the
/// counts a caller reports in its summary (nothing is dropped silently).
/// A plain value type.
public struct StatisticsResult: Sendable, Hashable {
    /// One record per group kept by the having clause, in the requested order.
    public var records: [StatisticsRecord]
    /// Rows given to the accumulator (merged accumulators included).
    public var rowCount: Int
    /// Groups formed, before the having clause.
    public var groupCount: Int
    /// String or date values that numeric statistics could not use (fields
    /// of unknown type, mistyped data); they still count for count/min/max.
    public var ignoredValueCount: Int
    /// Rows not aggregated because their group would have exceeded the
    /// accumulator's group limit.
    public var rowsOverGroupLimit: Int

    public init(records: [StatisticsRecord], rowCount: Int, groupCount: Int, ignoredValueCount: Int, rowsOverGroupLimit: Int) {
        self.records = records
        self.rowCount = rowCount
        self.groupCount = groupCount
        self.ignoredValueCount = ignoredValueCount
        self.rowsOverGroupLimit = rowsOverGroupLimit
    }
}
