import EntityStreamCore

/// What is wrong with an `identify` command's points, by case (the rules
/// the command shares with others are ``ControlCommandError/Problem`` cases).
public enum IdentifyCommandError: CommandRuleError {
    /// `x`, `y`, `inSR`, `sr` or `outSR` refused by ``IdentifyPoint``.
    case point(IdentifyPointError)
    /// `points` that is not an array.
    case pointsNotAnArray
    /// The point at `index` of `points`, refused by ``IdentifyPoint``.
    case pointAt(index: Int, IdentifyPointError)
    /// Neither `x` and `y` nor `points`.
    case noPoint

    public var description: String {
        switch self {
        case .point(let error): return error.description
        case .pointsNotAnArray: return "\"points\" must be an array of {\"x\":…,\"y\":…} objects"
        case .pointAt(let index, let error): return "points[\(index)]: \(error.description)"
        case .noPoint: return "give the point as \"x\" and \"y\" (or several as \"points\")"
        }
    }
}
