import EntityStreamModel
import EntityStreamProjection
import EntityStreamWhere

/// A control line that is not a valid command; answered with an error
/// response carrying ``id`` (null when none could be read), ``command`` and
/// ``message``. What is wrong is ``problem``, a case with the values that name it.
public struct ControlCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    public var id: JSONValue
    public var command: String?
    public var problem: Problem

    public init(id: JSONValue, command: String?, problem: Problem) {
        self.id = id
        self.command = command
        self.problem = problem
    }

    /// The text of the error response.
    public var message: String { problem.description }

    public var description: String { message }

    /// What is wrong with a control line, by case.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// The line is not JSON.
        case notJSON(JSONError)
        /// The line is JSON but not an object.
        case notAnObject
        /// No `id` member (or a null one).
        case missingID
        /// An `id` that is neither a string nor a number.
        case invalidID
        /// No `command` member (`known`: the commands there are).
        case missingCommand(known: [String])
        /// A command name nobody registered.
        case unknownCommand(String, known: [String])
        /// A member the command does not take (`allowed`: the ones it takes, sorted).
        case unknownMember(String, command: String, allowed: [String])
        /// A member that must be a string.
        case notAString(member: String)
        /// A member that must be true or false.
        case notABool(member: String)
        /// A member that must be a whole number within `range`.
        case notAWholeNumber(member: String, range: ClosedRange<Int>)
        /// A member that must be a finite number within `range`.
        case notANumber(member: String, range: ClosedRange<Double>)
        /// An element of a list of names that is not a string.
        case nameNotAString(member: String, index: Int)
        /// A list of names that is neither a comma-separated string nor an array.
        case notANameList(member: String)
        /// A list of names that names nothing.
        case noNames(member: String)
        /// An envelope member that is not one.
        case envelope(member: String, FilterError)
        /// A member that must be an array.
        case notAnArray(member: String)
        /// A track id that is neither a string nor a number (its JSON value).
        case notATrackID(member: String, index: Int, JSONValue)
        /// One end (`bound`: start or end) of a time extent that is not an instant.
        case timeBound(member: String, bound: String, InstantError)
        /// A time extent object with a member other than start and end.
        case timeExtentMember(member: String, unknown: String)
        /// A time extent array that is not `[start, end]`.
        case timeExtentArray(member: String)
        /// A time extent that cannot be made (its text, or its ends out of order).
        case timeExtent(member: String, TimeExtentError)
        /// A time extent given as something other than an object, an array or text.
        case timeExtentShape(member: String)
        /// Two members of which one may be given, both given.
        case conflicting(String, String)
        /// A member that is not a spatial reference PROJ knows.
        case spatialReference(member: String, ProjectionError)
        /// A where clause that does not parse.
        case whereClause(WhereClauseError)
        /// `set-filter` without `filter`.
        case missingFilter
        /// A `filter` that cannot be read.
        case filter(FilterError)
        /// `observations` of `query-entities` that is not a count.
        case observationsNotACount
        /// `cancel` without `job`.
        case missingJob
        /// A `job` that is neither a string nor a number.
        case invalidJob
        /// Groups of members of which one may be given, both given (`"x"` and `"y"` or `"points"`).
        case conflictingGroups([String], [String])
        /// A list member holding a number of elements outside `range` (`count`).
        case countOutOfRange(member: String, range: ClosedRange<Int>, count: Int)
        /// A list member holding more than `maximum` elements.
        case tooMany(member: String, maximum: Int)
        /// An element of a list member that is not an object of the shape `expected` spells.
        case elementNotAnObject(member: String, index: Int, expected: String)
        /// A rule particular to one command: the analysis's own error enum, by case.
        case command(CommandRule)

        public var description: String {
            switch self {
            case .notJSON(let error): return "not a JSON command: \(error)"
            case .notAnObject: return "a command must be a JSON object with \"id\" and \"command\""
            case .missingID: return "the command has no \"id\""
            case .invalidID: return "\"id\" must be a string or a number"
            case .missingCommand(let known): return "missing \"command\" (one of \(known.joined(separator: ", ")))"
            case .unknownCommand(let name, let known): return "unknown command '\(name)' (expected \(known.joined(separator: ", ")))"
            case .unknownMember(let name, let command, let allowed):
                return "unknown member '\(name)' for \(command)" + (allowed.isEmpty ? "" : " (expected \(allowed.joined(separator: ", ")))")
            case .notAString(let member): return "\"\(member)\" must be a string"
            case .notABool(let member): return "\"\(member)\" must be true or false"
            case .notAWholeNumber(let member, let range): return "\"\(member)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .notANumber(let member, let range): return "\"\(member)\" must be a number from \(range.lowerBound) to \(range.upperBound)"
            case .nameNotAString(let member, let index): return "\(member)[\(index)] must be a string"
            case .notANameList(let member): return "\"\(member)\" must be a comma-separated string or an array of strings"
            case .noNames(let member): return "\"\(member)\" names nothing"
            case .envelope(let member, let error): return "\"\(member)\": \(error.description)"
            case .notAnArray(let member): return "\"\(member)\" must be an array"
            case .notATrackID(let member, let index, let value): return "\(member)[\(index)] must be a string or a number, not \(value)"
            case .timeBound(let member, let bound, let error): return "\(member).\(bound): \(error.description)"
            case .timeExtentMember(let member, let unknown): return "\(member): unknown member '\(unknown)' (expected start, end)"
            case .timeExtentArray(let member): return "\"\(member)\" as an array must be [start, end]"
            case .timeExtent(let member, let error): return "\(member): \(error.description)"
            case .timeExtentShape(let member): return "\"\(member)\" must be {\"start\":…,\"end\":…}, [start, end] or \"start,end\""
            case .conflicting(let first, let second): return "give \"\(first)\" or \"\(second)\", not both"
            case .spatialReference(let member, let error): return "\"\(member)\": \(error)"
            case .whereClause(let error): return "where: \(error)"
            case .missingFilter: return "missing \"filter\" (an object with where, geometry, outFields; or null)"
            case .filter(let error): return error.description
            case .observationsNotACount: return "\"observations\" must be a count (-1 for all)"
            case .missingJob: return "missing \"job\" (the id of the analysis to cancel)"
            case .invalidJob: return "\"job\" must be the string or number id of an analysis"
            case .conflictingGroups(let first, let second):
                func spelled(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: " and ") }
                return "give either \(spelled(first)) or \(spelled(second)), not both"
            case .countOutOfRange(let member, let range, let count):
                return "\"\(member)\" must hold \(range.lowerBound) to \(range.upperBound) \(member), not \(count)"
            case .tooMany(let member, let maximum): return "\"\(member)\" lists more than \(maximum) \(member)"
            case .elementNotAnObject(let member, let index, let expected): return "\(member)[\(index)] must be an object \(expected)"
            case .command(let rule): return rule.description
            }
        }
    }
}

/// A command's own error enum, for the rules particular to that command (an
/// analysis's members): it names what is wrong by case and says it in words.
public protocol CommandRuleError: TypedError {}

/// One ``CommandRuleError``, held by ``ControlCommandError/Problem/command(_:)``
/// so that Core need not know the analyses' types (``AnyTypedError/error`` is
/// the error as thrown).
public typealias CommandRule = AnyTypedError
