import EntityStreamCore
import EntityStreamFeatures

/// What is wrong with a `query-observations` command, by case (the rules
/// the command shares with others are ``ControlCommandError/Problem`` cases).
public enum QueryCommandError: CommandRuleError {
    /// `timeField` or `trackIds` given with `layer`.
    case storeMembersWithLayer
    /// An `orderBy` a layer's query refuses.
    case orderBy(FeatureQueryError)

    public var description: String {
        switch self {
        case .storeMembersWithLayer: return "\"timeField\" and \"trackIds\" apply to the store, not to a layer (its time is its own timeInfo)"
        case .orderBy(let error): return error.description
        }
    }
}
