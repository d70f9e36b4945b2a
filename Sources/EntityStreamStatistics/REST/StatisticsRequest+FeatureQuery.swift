import EntityStreamFeatures
import EntityStreamModel

extension StatisticsRequest {
    /// The request a feature-layer query carries (a server reading
    /// `outStatistics`, `groupByFieldsForStatistics`, `orderByFields` and
    /// `havingClause` already parsed into a ``FeatureQuery``). An empty or
    /// blank `outStatisticFieldName` means ArcGIS's default name.
    /// - Throws: ``FeatureQueryError`` naming the parameter: `outStatistics`
    ///   when there is none, for `percentile_cont`/`percentile_disc` (not
    ///   supported here), and for the limits of ``StatisticsLimits``.
    public init(featureQuery query: FeatureQuery) throws(FeatureQueryError) {
        guard let definitions = query.outStatistics, !definitions.isEmpty else {
            throw FeatureQueryError("outStatistics", "must list at least one statistic")
        }
        var statistics: [StatisticDefinition] = []
        for definition in definitions {
            guard let type = StatisticType(restName: definition.type.rawValue) else {
                throw FeatureQueryError("outStatistics", "statisticType '\(definition.type.rawValue)' is not supported by this server "
                                        + "(count, sum, min, max, avg, stddev or var)")
            }
            let alias = definition.outputName.map { $0.trimmingSpaces }.flatMap { $0.isEmpty ? nil : $0 }
            statistics.append(StatisticDefinition(field: definition.field.trimmingSpaces, type: type, alias: alias))
        }
        let orderBy = query.orderBy.map { StatisticsOrdering(name: $0.field, direction: $0.descending ? .descending : .ascending) }
        do {
            try self.init(checking: statistics, groupBy: query.groupByFieldsForStatistics, orderBy: orderBy, having: query.havingClause)
        } catch {
            throw error.featureQueryError
        }
    }

    /// Sets `query`'s statistics parameters to ask a server for exactly what
    /// `plan` computes: every statistic with its output name spelled out
    /// (`outStatisticFieldName`, so the server's own naming does not
    /// matter), the plan's group-by fields, the requested order (group-by
    /// fields and output names), and the having clause as given. Other
    /// parameters (`where`, `time`, `geometry`) are left as they are.
    /// `plan` must have been made from this request.
    public func apply(to query: inout FeatureQuery, plan: StatisticsPlan) {
        query.outStatistics = zip(statistics, plan.statisticNames).map { definition, name in
            EntityStreamFeatures.StatisticDefinition(type: EntityStreamFeatures.StatisticDefinition.StatisticType(rawValue: definition.type.restName) ?? .count,
                                                 field: definition.field.trimmingSpaces, outputName: name)
        }
        query.groupByFieldsForStatistics = plan.groupFieldNames
        query.orderBy = orderBy.map { OrderByField(field: $0.name.trimmingSpaces, descending: $0.direction == .descending) }
        query.havingClause = having
        query.outFields = nil
        query.returnGeometry = false
    }

    /// ``apply(to:plan:)`` for a server that does not advertise
    /// `supportsHavingClause`: no `having` is sent; instead every statistic
    /// the clause needs is asked for too (under
    /// ``StatisticsPlan/havingOnlyOutputNames``), so that
    /// ``StatisticsPlan/records(from:applyingHaving:)`` can apply the
    /// clause to each group here.
    public func applyForLocalHaving(to query: inout FeatureQuery, plan: StatisticsPlan) {
        apply(to: &query, plan: plan)
        query.havingClause = nil
        query.outStatistics = (query.outStatistics ?? []) + zip(plan.havingOnlyOutputs, plan.havingOnlyOutputNames).map { output, name in
            EntityStreamFeatures.StatisticDefinition(type: EntityStreamFeatures.StatisticDefinition.StatisticType(rawValue: output.type.restName) ?? .count,
                                                 field: output.field, outputName: name)
        }
    }
}
