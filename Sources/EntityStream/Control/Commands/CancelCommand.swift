import EntityStreamCore
import EntityStreamModel

/// `{"id":9,"command":"cancel","job":7}`: asks the analysis started by the
/// command with id 7 to stop. The response says whether it was running;
/// the job's own `cancelled` line (or its final line, if it finished
/// first) follows.
public struct CancelCommand: ControlCommand {
    public static let name = "cancel"
    public static let members: Set<String> = ["job"]
    public let id: JSONValue
    public let job: JSONValue

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        guard let job = members.value("job") else { throw members.error(.missingJob) }
        switch job {
        case .string, .int, .double: self.job = job
        default: throw members.error(.invalidJob)
        }
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        let outcome = await session.runtime.cancel(job)
        let result = JSONValue.object(JSONObject([("job", job), ("state", .string(outcome.rawValue))]))
        switch outcome {
        case .cancelling, .alreadyCancelling: return response(ok: true, result: result)
        case .notRunning: return response(ok: false, result: result, error: "no analysis with id \(job) is running")
        }
    }
}
