import EntityStreamCore
import EntityStreamHotSpots

/// What is wrong with a `hotspots` command, by case (the rules the command
/// shares with others are ``ControlCommandError/Problem`` cases).
public enum HotSpotsCommandError: CommandRuleError {
    /// A member of the local engine given with `task` (the first one found).
    case localMemberWithTask(String)
    /// A `timeExtent` for a task with an open end.
    case taskTimeExtentOpen
    /// A `timeExtent` for a task the sample's date query cannot hold.
    case taskTimeExtent(GPRESTError)
    /// A member of a geoprocessing task given without `task`.
    case taskMemberWithoutTask(String)
    /// `cellSize` or `distanceBand` given as 0.
    case notAPositiveDistance(member: String)
    /// `cellSize` with the collect aggregation.
    case cellSizeWithCollect
    /// An `aggregation` other than fishnet or collect (the value given).
    case unknownAggregation(String)
    /// `valueField` with `aggregation` or `cellSize`.
    case weightedWithIncidentMembers

    public var description: String {
        switch self {
        case .localMemberWithTask(let member):
            return "\"\(member)\" applies to the local engine, not to a geoprocessing task (send \"query\" or \"timeExtent\")"
        case .taskTimeExtentOpen: return "\"timeExtent\" for a task needs both ends (the sample's query is strict at both)"
        case .taskTimeExtent(let error): return "timeExtent: \(error.description)"
        case .taskMemberWithoutTask(let member): return "\"\(member)\" applies to a geoprocessing task: give \"task\" too"
        case .notAPositiveDistance(let member): return "\"\(member)\" must be a positive distance"
        case .cellSizeWithCollect: return "\"cellSize\" applies to the fishnet aggregation, not to collect"
        case .unknownAggregation(let other): return "\"aggregation\" must be \"fishnet\" or \"collect\", not '\(other)'"
        case .weightedWithIncidentMembers:
            return "\"valueField\" analyses weighted points; \"aggregation\" and \"cellSize\" apply to incidents (no valueField)"
        }
    }
}
