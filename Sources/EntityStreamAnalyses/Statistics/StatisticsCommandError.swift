import EntityStreamCore
import EntityStreamStatistics

/// What is wrong with a `statistics` command, by case (the rules the
/// command shares with others are ``ControlCommandError/Problem`` cases).
/// `index` is the place of a definition in `statistics`.
public enum StatisticsCommandError: CommandRuleError {
    /// No `statistics` member.
    case missingStatistics
    /// `statistics` that is not a non-empty array.
    case statisticsNotAList
    /// A `TYPE:FIELD[:ALIAS]` definition the engine refuses.
    case definition(index: Int, StatisticsError)
    /// A definition object with a member other than type, field and alias.
    case definitionMember(index: Int, unknown: String)
    /// A definition object whose `type` is not a string.
    case typeNotAString(index: Int)
    /// A definition object whose `type` names no statistic.
    case unknownType(index: Int, name: String)
    /// A definition object without a field name.
    case missingField(index: Int)
    /// A definition object whose `alias` is empty.
    case emptyAlias(index: Int)
    /// A definition object whose `alias` is not a string.
    case aliasNotAString(index: Int)
    /// An `orderBy` term the engine refuses.
    case orderBy(StatisticsError)
    /// A request the engine refuses as a whole (names, orderings, having).
    case request(StatisticsError)
    /// `of`, `timeField` or `trackIds` given with `layer`.
    case storeMembersWithLayer
    /// `of` that is neither `entities` nor `observations` (the value given).
    case unknownRows(String)

    public var description: String {
        switch self {
        case .missingStatistics: return "\"statistics\" is required: a list such as [{\"type\":\"avg\",\"field\":\"speed\"}] or [\"count:*\"]"
        case .statisticsNotAList:
            return "\"statistics\" must be a non-empty array of {\"type\",\"field\",\"alias\"} objects or \"TYPE:FIELD[:ALIAS]\" strings"
        case .definition(let index, let error): return "statistics[\(index)]: \(error.description)"
        case .definitionMember(let index, let unknown): return "statistics[\(index)]: unknown member '\(unknown)' (expected type, field, alias)"
        case .typeNotAString(let index): return "statistics[\(index)].type must be a string (count, sum, min, max, avg, stddev or var)"
        case .unknownType(let index, let name): return "statistics[\(index)].type: \(StatisticsError.unknownStatisticType(name).description)"
        case .missingField(let index): return "statistics[\(index)].field must be a field name (or \"*\" with count)"
        case .emptyAlias(let index): return "statistics[\(index)].alias is empty"
        case .aliasNotAString(let index): return "statistics[\(index)].alias must be a string"
        case .orderBy(let error): return "orderBy: \(error.description)"
        case .request(let error): return error.description
        case .storeMembersWithLayer:
            return "\"of\", \"timeField\" and \"trackIds\" apply to the store, not to a layer (it computes over its own rows and time)"
        case .unknownRows(let of):
            return "\"of\" must be \"entities\" (the latest observation of each entity) or \"observations\" (every retained one), not '\(of)'"
        }
    }
}
