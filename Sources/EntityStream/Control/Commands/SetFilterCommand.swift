import EntityStreamCore
import EntityStreamModel

/// `{"id":3,"command":"set-filter","filter":{"where":"speed > 0"}}`: changes
/// the filter on the open socket (or the replay's local filter) and answers
/// with what the server said: applied, rejected, or timed out.
/// `"filter":null` clears it.
public struct SetFilterCommand: ControlCommand {
    public static let name = "set-filter"
    public static let members: Set<String> = ["filter"]
    public let id: JSONValue
    public let filter: StreamFilter

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        guard let value = members.object["filter"] else {
            throw members.error(.missingFilter)
        }
        do throws(FilterError) { filter = try StreamFilter.parse(json: value) } catch { throw members.error(.filter(error)) }
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        let outcome = await session.target.setFilter(filter)
        var result = JSONObject([("result", .string(outcome.result.rawValue))])
        if let reply = outcome.reply { result.append(key: "reply", value: reply) }
        return response(ok: outcome.result == .applied, result: .object(result), error: outcome.error)
    }
}
