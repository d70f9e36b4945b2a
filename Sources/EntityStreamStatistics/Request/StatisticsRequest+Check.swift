import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures

extension StatisticsRequest {
    /// Checks everything that can be decided without a schema, so a command
    /// line or a control command can refuse a request before it reads any
    /// source: the sizes of ``StatisticsLimits``; at least one statistic; `*` only for `count`; no group-by
    /// field twice; no output name twice (statistic names and group-by
    /// fields share one namespace; default names are formed from the field
    /// as given, and names compare ASCII case-insensitively, as the plan
    /// compares them); every order-by term names a group-by field or a
    /// statistic output name, once (checked after the having clause, as the
    /// plan does); the having clause parses, every field
    /// in it is inside an aggregate, and only `COUNT` takes `*`.
    ///
    /// A request that passes may still be refused by ``StatisticsPlan`` for
    /// what only a schema can tell (an unknown field, `avg` of a string);
    /// one that fails here always fails there too (possibly naming another
    /// problem first, one only the schema shows).
    /// - Throws: ``StatisticsError`` naming the first problem.
    public func check() throws(StatisticsError) {
        guard !statistics.isEmpty else { throw .noStatistics }
        _ = try StatisticsRequest(checking: statistics, groupBy: groupBy, orderBy: orderBy, having: having)
        var groupNames: [String] = []
        var namesInUse: Set<String> = []
        for name in groupBy {
            let folded = Schema.fold(name.trimmingSpaces)
            if let first = groupNames.first(where: { Schema.fold($0) == folded }) { throw .duplicateGroupByField(first) }
            namesInUse.insert(folded)
            groupNames.append(name.trimmingSpaces)
        }
        var statisticNames: [String] = []
        for definition in statistics {
            let field = definition.field.trimmingSpaces
            if field == StatisticDefinition.allRows && definition.type != .count { throw .allRowsNotCountable(definition.type) }
            let name = definition.outputName(fieldSpelling: field)
            if let problem = StatisticDefinition.nameProblem(name, role: "output name") {
                throw .malformedStatistic(text: name, reason: problem)
            }
            guard namesInUse.insert(Schema.fold(name)).inserted else { throw .duplicateOutputName(name) }
            statisticNames.append(name)
        }
        if let having, !having.trimmingSpaces.isEmpty {
            let references: WhereAggregateReferences
            do {
                references = try WhereClause.aggregateReferences(in: having, aggregateFunctions: StatisticType.havingFunctionNames)
            } catch {
                throw .having(position: error.position, message: error.message)
            }
            if let field = references.fields.first {
                throw .having(position: field.position, message: HavingFilter.outsideAggregateMessage(field.name))
            }
            for call in references.calls where call.argument == nil {
                guard let type = StatisticType(restName: call.function) else {
                    throw .having(position: call.position, message: "unknown aggregate '\(call.function)'")
                }
                if type != .count {
                    throw .having(position: call.position, message: StatisticsError.allRowsNotCountable(type).description)
                }
            }
        }
        var ordered: Set<String> = []
        for term in orderBy {
            let folded = Schema.fold(term.name.trimmingSpaces)
            guard namesInUse.contains(folded) else { throw .unknownOrderBy(name: term.name, available: groupNames + statisticNames) }
            guard ordered.insert(folded).inserted else { throw .duplicateOrderBy(term.name) }
        }
    }
}
