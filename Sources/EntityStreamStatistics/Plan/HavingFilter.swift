import EntityStreamModel
import EntityStreamWhere

/// A compiled having clause: ArcGIS aggregates (`AVG(f) > 10 AND COUNT(*) >= 5`;
/// AVG, COUNT, SUM, STDDEV, MIN, MAX, VAR of a field, COUNT also of `*`)
/// combined with everything the where engine offers (comparisons, AND/OR/NOT,
/// IN, BETWEEN, arithmetic, SQL three-valued logic).
///
/// Each distinct aggregate call becomes a synthetic field `FUNC(arg)` of a
/// synthetic schema over the group record, and the one where engine
/// compiles and evaluates the clause. Aggregates the request did not ask
/// for are added to the plan as unnamed outputs, so they are computed.
/// A group is kept only when the clause is `true` (`unknown` drops it, as
/// SQL's HAVING does). A plain value type.
struct HavingFilter: Sendable, Hashable {
    let clause: WhereClause
    /// Synthetic field `i` reads output `outputIndices[i]`.
    let outputIndices: [Int]

    /// Compiles `text`; every error is ``StatisticsError/having(position:message:)``.
    init(_ text: String, schema: Schema, outputs: inout OutputBuilder) throws(StatisticsError) {
        let functions = StatisticType.havingFunctionNames
        let references: WhereAggregateReferences
        do {
            references = try WhereClause.aggregateReferences(in: text, aggregateFunctions: functions)
        } catch {
            throw .having(position: error.position, message: error.message)
        }
        if let field = references.fields.first {
            throw .having(position: field.position, message: Self.outsideAggregateMessage(field.name))
        }
        var syntheticFields: [Field] = []
        var outputIndices: [Int] = []
        var seen: Set<String> = []
        for call in references.calls {
            guard seen.insert(Schema.fold(call.fieldName)).inserted else { continue }
            guard let type = StatisticType(restName: call.function) else {
                throw .having(position: call.position, message: "unknown aggregate '\(call.function)'")
            }
            var source: (index: Int, field: Field)?
            if let argument = call.argument {
                guard let index = schema.index(ofField: argument) else {
                    throw .having(position: call.position, message: "unknown field '\(argument)' in \(call.fieldName)")
                }
                let field = schema.fields[index]
                if type.needsNumericField && !field.type.acceptsNumericStatistics {
                    throw .having(position: call.position, message:
                        StatisticsError.nonNumericField(type: type, field: field.name, fieldType: field.type).description)
                }
                source = (index, field)
            } else if type != .count {
                throw .having(position: call.position, message: StatisticsError.allRowsNotCountable(type).description)
            }
            let output = outputs.output(type: type, field: source)
            outputIndices.append(output)
            syntheticFields.append(Field(name: call.fieldName, type: outputs.outputs[output].valueFieldType))
        }
        do {
            clause = try WhereClause(text, schema: Schema(fields: syntheticFields), aggregateFunctions: functions)
        } catch {
            throw .having(position: error.position, message: error.message)
        }
        self.outputIndices = outputIndices
    }

    /// The message for field `name` met outside any aggregate.
    static func outsideAggregateMessage(_ name: String) -> String {
        "'\(name)' is not inside an aggregate: a having clause compares aggregates only "
            + "(AVG, COUNT, SUM, STDDEV, MIN, MAX or VAR of a field, or COUNT(*))"
    }

    /// True when the group whose computed outputs are `values` is kept.
    func keeps(_ values: [AttributeValue]) -> Bool {
        clause.matches(HavingRow(values: values, outputIndices: outputIndices))
    }
}
