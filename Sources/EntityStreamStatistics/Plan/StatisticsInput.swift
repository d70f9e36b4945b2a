/// One field the accumulator reads per row, with what its statistics need:
/// all statistics on one field share a single ``FieldSummary`` per group
/// (so `avg`, `stddev` and `count` of a field read it once per row).
/// Built by ``StatisticsPlan``; a plain value type.
@usableFromInline
struct StatisticsInput: Sendable, Hashable {
    /// Schema index of the field.
    @usableFromInline var fieldIndex: Int
    /// `sum` or `avg` asked: keep the exact integer sum and the compensated double sum.
    @usableFromInline var needsSum: Bool
    /// `stddev` or `var` asked: keep Welford's running moments.
    @usableFromInline var needsMoments: Bool
    /// `min` or `max` asked: keep the extremes per value kind.
    @usableFromInline var needsExtremes: Bool

    init(fieldIndex: Int) {
        self.fieldIndex = fieldIndex
        needsSum = false
        needsMoments = false
        needsExtremes = false
    }

    /// Numeric statistics are asked, so a string or date value met at run
    /// time cannot take part in them (it is counted as ignored).
    @inlinable var needsNumber: Bool { needsSum || needsMoments }
}
