import EntityStreamFeatures

extension StatisticsError {
    /// The REST query parameter a server names when it refuses the request
    /// for this reason: `outStatistics` (the statistics themselves),
    /// `groupByFieldsForStatistics`, `orderByFields` or `having`.
    public var restParameter: String {
        switch self {
        case .noStatistics, .unknownStatisticType, .malformedStatistic, .malformedOutStatistics, .unknownStatisticField,
             .nonNumericField, .allRowsNotCountable, .duplicateOutputName:
            return "outStatistics"
        case .malformedGroupBy, .unknownGroupByField, .duplicateGroupByField:
            return "groupByFieldsForStatistics"
        case .malformedOrdering, .unknownOrderBy, .duplicateOrderBy:
            return "orderByFields"
        case .having:
            return "having"
        case .limitExceeded(let what, _):
            switch what {
            case .statistics, .outStatisticsBytes: return "outStatistics"
            case .groupByFields: return "groupByFieldsForStatistics"
            case .orderByTerms: return "orderByFields"
            case .havingBytes: return "having"
            }
        }
    }

    /// The error as a server reports it: the parameter, with this error kept as it is.
    public var featureQueryError: FeatureQueryError {
        .statistics(parameter: restParameter, FeatureQueryError.Underlying(self))
    }
}
