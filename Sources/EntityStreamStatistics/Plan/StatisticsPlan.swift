import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures

/// A statistics request compiled once against a ``Schema``: every name
/// resolved (case-insensitively) to a field index, every type checked, the
/// having clause compiled by the where engine, the ordering resolved.
///
/// Construction throws ``StatisticsError`` — before any row is read — for
/// an empty statistics list, an unknown statistic or group-by field,
/// `sum`/`avg`/`stddev`/`var` of a field whose declared type is not numeric
/// (string, date, GUID; fields of an unknown type `.other` are accepted and
/// checked per value), a statistic other than `count` of `*`, a duplicate
/// group-by field or output name (group-by field names and statistic output
/// names share one namespace, as in a REST response), an order-by term that
/// is neither a group-by field nor a statistic output name, and a having
/// clause that is malformed, names a field outside an aggregate, or applies
/// an aggregate to an unknown or unsuitable field.
///
/// Names in results: group-by fields and default statistic names use the
/// schema's spelling (`avg:diabetes` on field `Diabetes` is `AVG_Diabetes`);
/// aliases are kept as given. A plan is an immutable value; `Sendable`, so
/// one plan can feed accumulators on several tasks.
public struct StatisticsPlan: Sendable, Hashable {
    /// The request as given.
    public let request: StatisticsRequest
    /// Schema indices of the group-by fields, in request order.
    public let groupFieldIndices: [Int]
    /// Group-by field names as the schema spells them, in request order.
    public let groupFieldNames: [String]
    /// Output names of the requested statistics, in request order.
    public let statisticNames: [String]
    /// Every field a row source must provide (group-by and statistic
    /// fields, having arguments included), sorted and unique.
    public let referencedFieldIndices: [Int]

    @usableFromInline let inputs: [StatisticsInput]
    /// Requested outputs first (request order), then having-only ones.
    let outputs: [StatisticsOutput]
    let orderKeys: [OrderKey]
    let having: HavingFilter?

    /// Compiles `request` against `schema`.
    /// - Throws: ``StatisticsError`` as listed in the type's description.
    public init(_ request: StatisticsRequest, schema: Schema) throws(StatisticsError) {
        self.request = request
        guard !request.statistics.isEmpty else { throw .noStatistics }
        guard request.statistics.count <= StatisticsLimits.maximumStatistics else {
            throw .limitExceeded(what: .statistics, limit: StatisticsLimits.maximumStatistics)
        }
        guard request.groupBy.count <= StatisticsLimits.maximumGroupByFields else {
            throw .limitExceeded(what: .groupByFields, limit: StatisticsLimits.maximumGroupByFields)
        }

        // Group-by fields.
        var groupIndices: [Int] = []
        var groupNames: [String] = []
        var namesInUse: [String: String] = [:] // folded → spelling
        for name in request.groupBy {
            guard let index = schema.index(ofField: name.trimmingSpaces) else { throw .unknownGroupByField(name) }
            if groupIndices.contains(index) { throw .duplicateGroupByField(schema.fields[index].name) }
            groupIndices.append(index)
            let spelling = schema.fields[index].name
            groupNames.append(spelling)
            namesInUse[Schema.fold(spelling)] = spelling
        }

        // Requested statistics.
        var builder = OutputBuilder()
        var statisticNames: [String] = []
        for definition in request.statistics {
            let fieldName = definition.field.trimmingSpaces
            var source: (index: Int, field: Field)?
            if fieldName == StatisticDefinition.allRows {
                guard definition.type == .count else { throw .allRowsNotCountable(definition.type) }
            } else {
                guard let index = schema.index(ofField: fieldName) else {
                    throw .unknownStatisticField(field: fieldName, type: definition.type)
                }
                let field = schema.fields[index]
                if definition.type.needsNumericField && !field.type.acceptsNumericStatistics {
                    throw .nonNumericField(type: definition.type, field: field.name, fieldType: field.type)
                }
                source = (index, field)
            }
            let name = definition.outputName(fieldSpelling: source?.field.name ?? StatisticDefinition.allRows)
            if let problem = StatisticDefinition.nameProblem(name, role: "output name") {
                throw .malformedStatistic(text: name, reason: problem)
            }
            let folded = Schema.fold(name)
            if namesInUse[folded] != nil { throw .duplicateOutputName(name) }
            namesInUse[folded] = name
            statisticNames.append(name)
            builder.append(name: name, type: definition.type, field: source)
        }

        // Having: may add unnamed outputs after the requested ones.
        var having: HavingFilter?
        if let text = request.having, !text.trimmingSpaces.isEmpty {
            having = try HavingFilter(text, schema: schema, outputs: &builder)
        }

        // Ordering: the requested terms, then every group field not yet
        // used, ascending, so the order is total and deterministic.
        var orderKeys: [OrderKey] = []
        var ordered: Set<OrderKey.Source> = []
        for term in request.orderBy {
            let folded = Schema.fold(term.name.trimmingSpaces)
            let source: OrderKey.Source
            if let position = groupNames.firstIndex(where: { Schema.fold($0) == folded }) {
                source = .group(position)
            } else if let output = statisticNames.firstIndex(where: { Schema.fold($0) == folded }) {
                source = .output(output)
            } else {
                throw .unknownOrderBy(name: term.name, available: groupNames + statisticNames)
            }
            guard ordered.insert(source).inserted else { throw .duplicateOrderBy(term.name) }
            orderKeys.append(OrderKey(source: source, direction: term.direction))
        }
        for position in groupIndices.indices where !ordered.contains(.group(position)) {
            orderKeys.append(OrderKey(source: .group(position), direction: .ascending))
        }

        self.groupFieldIndices = groupIndices
        self.groupFieldNames = groupNames
        self.statisticNames = statisticNames
        self.inputs = builder.inputs
        self.outputs = builder.outputs
        self.orderKeys = orderKeys
        self.having = having
        self.referencedFieldIndices = Array(Set(groupIndices + builder.inputs.map(\.fieldIndex))).sorted()
    }

    /// A fresh accumulator for this plan. Rows that would open a group beyond
    /// `maximumGroups` (clamped to 1…2³¹−2) are not aggregated; they are
    /// counted in ``StatisticsResult/rowsOverGroupLimit``.
    public func makeAccumulator(maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) -> StatisticsAccumulator {
        StatisticsAccumulator(plan: self, maximumGroups: maximumGroups)
    }

    /// Aggregates `rows` in one pass and finishes (plain rows).
    public func compute<Rows: Sequence>(_ rows: Rows) -> StatisticsResult where Rows.Element: AttributeRow {
        var accumulator = makeAccumulator()
        for row in rows { accumulator.add(row) }
        return accumulator.finish()
    }

    /// Aggregates identity-keyed `rows` (one source) in one pass and finishes.
    public func compute<Rows: Sequence>(_ rows: Rows) -> StatisticsResult where Rows.Element: IdentityKeyedRow {
        var accumulator = makeAccumulator()
        for row in rows { accumulator.add(row) }
        return accumulator.finish()
    }
}

extension FieldType {
    /// Declared types `sum`/`avg`/`stddev`/`var` accept: the numeric ones,
    /// and `.other` (unknown to the engine; its values are checked one by one).
    var acceptsNumericStatistics: Bool {
        switch self {
        case .objectID, .smallInteger, .integer, .bigInteger, .single, .double, .other: return true
        case .string, .date, .guid, .globalID: return false
        }
    }
}
