import EntityStreamModel
import EntityStreamWhere

/// Everything one group keeps about one field: counts per value kind, the
/// exact integer sum, the compensated double sum, Welford's moments and the
/// extremes — only the parts its ``StatisticsInput`` asks for are updated.
///
/// Value rules (SQL's, as SQLite applies them): NULL and NaN are no value;
/// `.bool` counts as the integer 0 or 1; integers are summed exactly in
/// 128 bits (no overflow for fewer than 2⁶⁴ values) and converted to Double
/// once, at the end; doubles are summed with Neumaier compensation. A
/// string or date value of a field that numeric statistics read (possible
/// only for fields of unknown type or mistyped data) still counts for
/// `count`, `min` and `max`, but not for `sum`/`avg`/`stddev`/`var`: ``add(_:_:)``
/// reports it so the accumulator can count it as ignored. Extremes follow
/// SQLite's cross-kind order: numbers (integers, doubles, dates, compared
/// exactly by value) before strings (binary UTF-8 order). A value type.
@usableFromInline
struct FieldSummary: Sendable {
    // Declared so that what one value kind touches is contiguous: a double
    // updates only the first 64 bytes, an integer the moments and the next 40.
    @usableFromInline var doubleCount: Int64 = 0
    @usableFromInline var doubleSum = CompensatedSum()
    @usableFromInline var moments = RunningMoments()
    @usableFromInline var doubleMin = Double.infinity
    @usableFromInline var doubleMax = -Double.infinity
    @usableFromInline var intSum: Int128 = 0
    @usableFromInline var intCount: Int64 = 0
    @usableFromInline var intMin = Int64.max
    @usableFromInline var intMax = Int64.min
    @usableFromInline var dateCount: Int64 = 0
    @usableFromInline var dateMin = Int64.max
    @usableFromInline var dateMax = Int64.min
    @usableFromInline var stringCount: Int64 = 0
    @usableFromInline var stringMin: String?
    @usableFromInline var stringMax: String?

    @inlinable init() {}

    /// Takes one value; returns 1 when the value is ignored by the numeric
    /// statistics the input asks for (a string or date), else 0.
    @inlinable @inline(__always)
    mutating func add(_ value: AttributeValue, _ input: StatisticsInput) -> Int {
        switch value {
        case .double(let x):
            if x.isNaN { return 0 }
            doubleCount &+= 1
            if input.needsSum { doubleSum.add(x) }
            if input.needsMoments { moments.add(x) }
            if input.needsExtremes {
                if x < doubleMin { doubleMin = x }
                if x > doubleMax { doubleMax = x }
            }
            return 0
        case .int(let i):
            addInteger(i, input)
            return 0
        case .null:
            return 0
        case .bool(let flag):
            addInteger(flag ? 1 : 0, input)
            return 0
        case .date(let milliseconds):
            dateCount &+= 1
            if input.needsExtremes {
                if milliseconds < dateMin { dateMin = milliseconds }
                if milliseconds > dateMax { dateMax = milliseconds }
            }
            return input.needsNumber ? 1 : 0
        case .string(let text):
            stringCount &+= 1
            if input.needsExtremes { addStringExtreme(text) }
            return input.needsNumber ? 1 : 0
        }
    }

    @inlinable @inline(__always)
    mutating func addInteger(_ i: Int64, _ input: StatisticsInput) {
        intCount &+= 1
        if input.needsSum { intSum &+= Int128(i) }
        if input.needsMoments { moments.add(Double(i)) }
        if input.needsExtremes {
            if i < intMin { intMin = i }
            if i > intMax { intMax = i }
        }
    }

    @usableFromInline
    mutating func addStringExtreme(_ text: String) {
        if let current = stringMin {
            if WhereValueOrder.compare(text, current) == .less { stringMin = text }
        } else {
            stringMin = text
        }
        if let current = stringMax {
            if WhereValueOrder.compare(text, current) == .greater { stringMax = text }
        } else {
            stringMax = text
        }
    }

    /// Combines with the summary of another, disjoint set of rows.
    mutating func merge(_ other: FieldSummary) {
        intCount &+= other.intCount
        doubleCount &+= other.doubleCount
        dateCount &+= other.dateCount
        stringCount &+= other.stringCount
        intSum &+= other.intSum
        doubleSum.add(other.doubleSum)
        moments.merge(other.moments)
        intMin = Swift.min(intMin, other.intMin)
        intMax = Swift.max(intMax, other.intMax)
        doubleMin = Swift.min(doubleMin, other.doubleMin)
        doubleMax = Swift.max(doubleMax, other.doubleMax)
        dateMin = Swift.min(dateMin, other.dateMin)
        dateMax = Swift.max(dateMax, other.dateMax)
        if let text = other.stringMin { addStringExtreme(text) }
        if let text = other.stringMax { addStringExtreme(text) }
    }

    // MARK: - Results

    /// Non-null values (`count`).
    var count: Int64 { intCount &+ doubleCount &+ dateCount &+ stringCount }

    /// Values taking part in the numeric statistics.
    var numericCount: Int64 { intCount &+ doubleCount }

    /// `sum`: nil without a numeric value.
    var sum: Double? {
        guard numericCount > 0 else { return nil }
        var total = doubleSum
        total.add(Double(intSum))
        return total.value
    }

    /// `avg`: nil without a numeric value.
    var average: Double? {
        guard let sum else { return nil }
        return sum / Double(numericCount)
    }

    /// `min`: numbers before strings; nil without a value.
    var minimum: AttributeValue? {
        var best: AttributeValue?
        func consider(_ candidate: AttributeValue) {
            if let current = best, WhereValueOrder.compare(candidate, current) != .less { return }
            best = candidate
        }
        if intCount > 0 { consider(.int(intMin)) }
        if doubleCount > 0 { consider(.double(doubleMin)) }
        if dateCount > 0 { consider(.date(milliseconds: dateMin)) }
        if best == nil, let stringMin { best = .string(stringMin) }
        return best
    }

    /// `max`: strings after numbers; nil without a value.
    var maximum: AttributeValue? {
        if let stringMax { return .string(stringMax) }
        var best: AttributeValue?
        func consider(_ candidate: AttributeValue) {
            if let current = best, WhereValueOrder.compare(candidate, current) != .greater { return }
            best = candidate
        }
        if intCount > 0 { consider(.int(intMax)) }
        if doubleCount > 0 { consider(.double(doubleMax)) }
        if dateCount > 0 { consider(.date(milliseconds: dateMax)) }
        return best
    }
}
