import EntityStreamWhere
/// Why a filter cannot be applied locally.
public enum LocalFilterError: Error, Sendable, Hashable, CustomStringConvertible {
    case whereClause(WhereClauseError)
    case filter(FilterError)

    public var description: String {
        switch self {
        case .whereClause(let error): return error.description
        case .filter(let error): return error.description
        }
    }
}
