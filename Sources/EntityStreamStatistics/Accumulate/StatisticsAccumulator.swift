import EntityStreamModel
import EntityStreamWhere

/// Aggregates rows into groups for one ``StatisticsPlan``, in one pass,
/// and produces the records with ``finish()``.
///
/// - ``add(_:)-(AttributeRow)`` reads a plain row: group values are hashed
///   as ``AttributeValue``s (SQL grouping, see `GroupValueRules`: one NULL
///   group, numbers by value, strings by Swift `==`).
///   ``add(_:)-(IdentityKeyedRow)`` is the fast path for sources that hand
///   out identity words (the entity store's packed
///   words): up to four group fields are keyed by their words, and values
///   are looked at only when a new word combination appears. All identity
///   rows given to one accumulator must come from one source (one word
///   space); use one accumulator per source and ``merge(_:)`` them. Both
///   paths are generic (specialised for the caller's row type, no
///   existential boxing) and allocate nothing per row except when a new
///   group opens.
/// - ``merge(_:)`` folds in an accumulator of the same plan that saw other
///   rows (Chan et al.'s parallel variance, compensated sums), so a caller
///   can split a scan across tasks: `finish()` of the merge equals a single
///   pass up to floating-point rounding.
/// - Never fails and never traps on any row. A row that would open a group
///   beyond `maximumGroups` is not aggregated but counted in
///   ``StatisticsResult/rowsOverGroupLimit``; a string or date value met by
///   numeric statistics (fields of unknown type, mistyped data) is counted
///   in ``StatisticsResult/ignoredValueCount``.
///
/// A value type with no shared state: `Sendable`; give each task its own.
public struct StatisticsAccumulator: Sendable {
    public let plan: StatisticsPlan
    @usableFromInline let groupFields: [Int]
    @usableFromInline let inputs: [StatisticsInput]
    @usableFromInline let maximumGroups: Int

    /// Group values, `groupFields.count` per group (NaN stored as NULL).
    @usableFromInline var groupValues: [AttributeValue] = []
    /// Rows per group (`count` of `*`).
    @usableFromInline var rowCounts: [Int64] = []
    /// `inputs.count` summaries per group.
    @usableFromInline var summaries: [FieldSummary] = []
    @usableFromInline var identityIndex: IdentityKeyIndex
    @usableFromInline var valueIndex = ValueKeyIndex()
    /// The identity key of the previous identity row and its group.
    @usableFromInline var lastKey = SIMD4<UInt64>()
    @usableFromInline var lastGroup = 0
    @usableFromInline var hasLastKey = false
    /// The group values of the row being looked up (no allocation per row).
    @usableFromInline var scratch: [AttributeValue]

    @usableFromInline var rowCount = 0
    @usableFromInline var ignoredValueCount = 0
    @usableFromInline var rowsOverGroupLimit = 0

    init(plan: StatisticsPlan, maximumGroups: Int) {
        self.plan = plan
        groupFields = plan.groupFieldIndices
        inputs = plan.inputs
        // Group numbers are stored as Int32 in the hash indexes.
        self.maximumGroups = Swift.min(Swift.max(1, maximumGroups), Int(Int32.max) - 1)
        identityIndex = IdentityKeyIndex(seed: UInt64.random(in: .min ... .max))
        scratch = Array(repeating: .null, count: plan.groupFieldIndices.count)
        if groupFields.isEmpty {
            // Without group-by there is exactly one group, even over no rows (SQL).
            rowCounts.append(0)
            summaries.append(contentsOf: repeatElement(FieldSummary(), count: inputs.count))
            valueIndex.append(hash: 0)
        }
    }

    /// The number of groups formed so far.
    public var groupCount: Int { rowCounts.count }

    // MARK: - Adding rows

    /// Aggregates one plain row (group values hashed by value).
    @inlinable
    public mutating func add(_ row: some AttributeRow) {
        rowCount &+= 1
        let group = groupFields.isEmpty ? 0 : valueGroup(of: row)
        guard group >= 0 else {
            rowsOverGroupLimit &+= 1
            return
        }
        accumulate(row, into: group)
    }

    /// Aggregates one row of an identity-keyed source (group values keyed
    /// by identity words; see the type's description).
    @inlinable
    public mutating func add(_ row: some IdentityKeyedRow) {
        rowCount &+= 1
        let width = groupFields.count
        var group = 0
        if width > 4 {
            group = valueGroup(of: row)
        } else if width > 0 {
            var key = SIMD4<UInt64>()
            for j in 0..<width { key[j] = row.identityWord(at: groupFields[j]) }
            if hasLastKey && key == lastKey {
                group = lastGroup
            } else {
                let hash = identityIndex.hash(key, width: width)
                if let known = identityIndex.group(of: key, hash: hash) {
                    group = known
                } else {
                    group = valueGroup(of: row)
                    if group >= 0 { identityIndex.insert(key, hash: hash, group: group, width: width) }
                }
                lastKey = key
                lastGroup = group
                hasLastKey = true
            }
        }
        guard group >= 0 else {
            rowsOverGroupLimit &+= 1
            return
        }
        accumulate(row, into: group)
    }

    @inlinable @inline(__always)
    mutating func accumulate(_ row: some AttributeRow, into group: Int) {
        rowCounts[group] &+= 1
        let count = inputs.count
        let base = group &* count
        var ignored = 0
        inputs.withUnsafeBufferPointer { inputs in
            summaries.withUnsafeMutableBufferPointer { summaries in
                // Checked once here, so the loop needs no bounds checks.
                guard base >= 0, base &+ count <= summaries.count else { return }
                for i in 0..<count {
                    let input = inputs[i]
                    ignored &+= summaries[base &+ i].add(row.value(at: input.fieldIndex), input)
                }
            }
        }
        ignoredValueCount &+= ignored
    }

    /// The group of `row`'s group values, opened when new; -1 when a new
    /// group would exceed the limit.
    @inlinable
    mutating func valueGroup(of row: some AttributeRow) -> Int {
        var hasher = Hasher()
        for j in 0..<groupFields.count {
            let value = row.value(at: groupFields[j])
            GroupValueRules.hash(value, into: &hasher)
            scratch[j] = value
        }
        return groupOfScratch(hash: hasher.finalize())
    }

    /// The group whose values equal ``scratch``, opened when new; -1 over the limit.
    @usableFromInline
    mutating func groupOfScratch(hash: Int) -> Int {
        let width = groupFields.count
        let found = valueIndex.group(hash: hash) { group in
            let base = group * width
            for j in 0..<width where !GroupValueRules.sameGroup(groupValues[base + j], scratch[j]) { return false }
            return true
        }
        if let found { return found }
        guard rowCounts.count < maximumGroups else { return -1 }
        for value in scratch { groupValues.append(GroupValueRules.representative(value)) }
        rowCounts.append(0)
        summaries.append(contentsOf: repeatElement(FieldSummary(), count: inputs.count))
        valueIndex.append(hash: hash)
        return rowCounts.count - 1
    }

    // MARK: - Merging

    /// Folds in `other`, an accumulator of an equal plan that saw other rows.
    /// Groups are matched by value, so `other` may come from another source.
    /// Passing an accumulator of a different plan is a programming error (trap).
    public mutating func merge(_ other: StatisticsAccumulator) {
        precondition(plan == other.plan, "StatisticsAccumulator.merge: the accumulators were made from different plans")
        rowCount &+= other.rowCount
        ignoredValueCount &+= other.ignoredValueCount
        rowsOverGroupLimit &+= other.rowsOverGroupLimit
        let width = groupFields.count
        let count = inputs.count
        for group in 0..<other.groupCount {
            var target = 0
            if width > 0 {
                var hasher = Hasher()
                for j in 0..<width {
                    let value = other.groupValues[group * width + j]
                    GroupValueRules.hash(value, into: &hasher)
                    scratch[j] = value
                }
                target = groupOfScratch(hash: hasher.finalize())
            }
            guard target >= 0 else {
                rowsOverGroupLimit &+= Int(other.rowCounts[group])
                continue
            }
            rowCounts[target] &+= other.rowCounts[group]
            for i in 0..<count { summaries[target * count + i].merge(other.summaries[group * count + i]) }
        }
    }

    // MARK: - Results

    /// The records: one per group that passes the having clause, in the
    /// plan's order (ties impossible: unordered group fields break them,
    /// ascending). Can be called any number of times; adding more rows
    /// afterwards is allowed.
    public func finish() -> StatisticsResult {
        let outputs = plan.outputs
        let width = groupFields.count
        var computed: [[AttributeValue]] = []
        computed.reserveCapacity(groupCount)
        var kept: [Int] = []
        for group in 0..<groupCount {
            var values: [AttributeValue] = []
            values.reserveCapacity(outputs.count)
            for output in outputs { values.append(value(of: output, group: group)) }
            computed.append(values)
            if plan.having?.keeps(values) ?? true { kept.append(group) }
        }
        let keys = plan.orderKeys
        kept.sort { a, b in
            for key in keys {
                var order: Int
                switch key.source {
                case .group(let j): order = GroupValueRules.compare(groupValues[a * width + j], groupValues[b * width + j])
                case .output(let o): order = GroupValueRules.compare(computed[a][o], computed[b][o])
                }
                if key.direction == .descending { order = -order }
                if order != 0 { return order < 0 }
            }
            return false
        }
        let requested = plan.statisticNames.count
        let records = kept.map { group in
            StatisticsRecord(
                group: (0..<width).map { NamedValue(name: plan.groupFieldNames[$0], value: groupValues[group * width + $0]) },
                statistics: (0..<requested).map { NamedValue(name: plan.statisticNames[$0], value: computed[group][$0]) })
        }
        return StatisticsResult(records: records, rowCount: rowCount, groupCount: groupCount,
                                ignoredValueCount: ignoredValueCount, rowsOverGroupLimit: rowsOverGroupLimit)
    }

    /// The value of `output` for `group`.
    func value(of output: StatisticsOutput, group: Int) -> AttributeValue {
        guard let input = output.input else { return .int(rowCounts[group]) }
        let summary = summaries[group * inputs.count + input]
        func number(_ x: Double?) -> AttributeValue {
            guard let x, !x.isNaN else { return .null }
            return .double(x)
        }
        switch output.type {
        case .count: return .int(summary.count)
        case .sum: return number(summary.sum)
        case .avg: return number(summary.average)
        case .var: return number(summary.moments.sampleVariance)
        case .stddev: return number(summary.moments.sampleVariance?.squareRoot())
        case .min: return summary.minimum ?? .null
        case .max: return summary.maximum ?? .null
        }
    }
}
