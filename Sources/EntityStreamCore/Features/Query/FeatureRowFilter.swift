/// The row filters of a ``FeatureQuery`` — `where`, `text`, `time` and
/// `geometry`, not object ids — compiled once for a table's layout and
/// tested one row at a time, on the row's values and point: what
/// ``FeatureQueryEngine`` selects with, and what a streamed CSV scan
/// (``CSVFileScan``) applies to each record before it converts the columns
/// the filter does not read. The semantics are the engine's (see its
/// description). A value; safe from any number of threads.
public struct FeatureRowFilter: Sendable {
    let whereClause: WhereClause?
    let textClause: WhereClause?
    /// The time extent, nil when absent or unbounded (no row is then excluded by time).
    let time: TimeExtent?
    let envelope: EnvelopeTest?
    let area: SearchArea?
    let startTimeField: Int?
    let endTimeField: Int?

    init(whereClause: WhereClause?, textClause: WhereClause?, time: TimeExtent?, envelope: EnvelopeTest?, area: SearchArea?,
         startTimeField: Int?, endTimeField: Int?) {
        self.whereClause = whereClause
        self.textClause = textClause
        self.time = time.flatMap { $0.isUnbounded ? nil : $0 }
        self.envelope = envelope
        self.area = area
        self.startTimeField = startTimeField
        self.endTimeField = endTimeField
    }

    /// The schema indices of the fields the filter reads (the time fields when it tests time).
    public var fieldIndices: Set<Int> {
        var fields = Set((whereClause?.referencedFieldIndices ?? []) + (textClause?.referencedFieldIndices ?? []))
        if time != nil { fields.formUnion([startTimeField, endTimeField].compactMap { $0 }) }
        return fields
    }

    /// True when the filter reads each row's point.
    public var readsGeometry: Bool { envelope != nil || area != nil }

    /// True when every row passes (nothing to test).
    public var passesAll: Bool { whereClause == nil && textClause == nil && time == nil && !readsGeometry }

    /// True when the row with these values and point (nil: none) passes every filter.
    @inline(__always)
    public func passes(_ row: FeatureTableRowValues, point: Point?) -> Bool {
        if let time {
            guard let startField = startTimeField, let start = FeatureTable.milliseconds(row.value(at: startField)) else { return false }
            let end = endTimeField.flatMap { FeatureTable.milliseconds(row.value(at: $0)) } ?? start
            guard time.overlaps(from: start, to: end) else { return false }
        }
        if let envelope {
            guard let point, envelope.contains(point) else { return false }
        }
        if let area {
            guard let point, area.contains(point) else { return false }
        }
        if let whereClause, !whereClause.matches(row) { return false }
        if let textClause, !textClause.matches(row) { return false }
        return true
    }
}
