import EntityStreamModel

/// One computed statistic: a requested one (in request order, with its
/// output name) or one only a having clause needs (no name, never in a
/// record). Built by ``StatisticsPlan``; a plain value type.
struct StatisticsOutput: Sendable, Hashable {
    /// The output name; empty for having-only statistics.
    var name: String
    var type: StatisticType
    /// Index into the plan's inputs; nil for `count` of `*` (the group's row count).
    var input: Int?
    /// The declared type of the source field; nil for `*`.
    var fieldType: FieldType?
    /// The source field's name as the schema spells it; nil for `*`.
    var fieldName: String?

    /// The type the value has, for type-checking a having clause.
    var valueFieldType: FieldType {
        switch type {
        case .count: return .bigInteger
        case .sum, .avg, .stddev, .var: return .double
        case .min, .max: return fieldType ?? .bigInteger
        }
    }
}
