import EntityStreamModel

/// Why a statistics request was refused: malformed text (a `--stat` spec, an
/// order-by term, REST `outStatistics` JSON), or a request that does not fit
/// the schema (unknown field, `avg` of a string, a having clause naming a
/// non-aggregate, an order-by that is neither a group field nor a statistic).
///
/// Every case is raised while parsing or compiling the request, before any
/// row is read; accumulating never fails. ``description`` is the message to
/// show a user. A plain value type; `Sendable`, `Hashable`, so tests compare
/// errors directly.
public enum StatisticsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request lists no statistic.
    case noStatistics
    /// A statistic type other than the seven ArcGIS types.
    case unknownStatisticType(String)
    /// A statistic spec (`TYPE:FIELD[:ALIAS]`) that cannot be read.
    case malformedStatistic(text: String, reason: String)
    /// An order-by term (`NAME [ASC|DESC]`) that cannot be read.
    case malformedOrdering(text: String, reason: String)
    /// A group-by list (`f1,f2`) that cannot be read.
    case malformedGroupBy(text: String, reason: String)
    /// REST `outStatistics` JSON that is not what the protocol describes.
    case malformedOutStatistics(reason: String)
    /// More items, or longer text, than ``StatisticsLimits`` allows.
    case limitExceeded(what: StatisticsLimit, limit: Int)
    /// A statistic names a field the schema does not have.
    case unknownStatisticField(field: String, type: StatisticType)
    /// A group-by field the schema does not have.
    case unknownGroupByField(String)
    /// `sum`/`avg`/`stddev`/`var` of a field whose declared type is not numeric.
    case nonNumericField(type: StatisticType, field: String, fieldType: FieldType)
    /// A statistic other than `count` asked of `*` (all rows).
    case allRowsNotCountable(StatisticType)
    /// The same group-by field listed twice.
    case duplicateGroupByField(String)
    /// Two outputs (statistics, or a statistic and a group-by field) with one name.
    case duplicateOutputName(String)
    /// An order-by name that is neither a group-by field nor a statistic output name.
    case unknownOrderBy(name: String, available: [String])
    /// The same name ordered by twice.
    case duplicateOrderBy(String)
    /// A having clause that cannot be used: a syntax or type error, a field
    /// outside an aggregate, an unknown aggregate or argument.
    /// `position` is the 1-based Unicode scalar offset in the clause.
    case having(position: Int, message: String)

    public var description: String {
        switch self {
        case .noStatistics:
            return "no statistics requested: give at least one (for example count:*)"
        case .unknownStatisticType(let name):
            return "unknown statistic type '\(name)' (expected count, sum, min, max, avg, stddev or var)"
        case .malformedStatistic(let text, let reason):
            return "invalid statistic '\(text)': \(reason)"
        case .malformedOrdering(let text, let reason):
            return "invalid order-by term '\(text)': \(reason)"
        case .malformedGroupBy(let text, let reason):
            return "invalid group-by fields '\(text)': \(reason)"
        case .malformedOutStatistics(let reason):
            return "invalid outStatistics: \(reason)"
        case .limitExceeded(let what, let limit):
            return "too many \(what) (at most \(limit))"
        case .unknownStatisticField(let field, let type):
            return "unknown field '\(field)' in statistic \(type.restName):\(field)"
        case .unknownGroupByField(let name):
            return "unknown group-by field '\(name)'"
        case .nonNumericField(let type, let field, let fieldType):
            return "\(type.sqlName) needs a numeric field, but '\(field)' is a \(fieldType.word) field"
        case .allRowsNotCountable(let type):
            return "\(type.sqlName) of '*' is not allowed: only COUNT takes '*' (all rows)"
        case .duplicateGroupByField(let name):
            return "group-by field '\(name)' is listed twice"
        case .duplicateOutputName(let name):
            return "output name '\(name)' is used twice (give the statistic an alias)"
        case .unknownOrderBy(let name, let available):
            return "order-by '\(name)' is neither a group-by field nor a statistic output name (expected one of: \(available.joined(separator: ", ")))"
        case .duplicateOrderBy(let name):
            return "order-by names '\(name)' twice"
        case .having(let position, let message):
            return "having clause error at position \(position): \(message)"
        }
    }

}
