import EntityStreamCore
import EntityStreamModel

/// `{"id":3,"command":"purge-all"}`: empties the store without
/// disconnecting (one `entity-purged` event per entity, flagged purge-all).
public struct PurgeAllCommand: ControlCommand {
    public static let name = "purge-all"
    public static let members: Set<String> = []
    public let id: JSONValue

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        let purged = await session.pipeline.store.purgeAll()
        return response(ok: true, result: .object(JSONObject([("purgedEntities", .int(Int64(purged)))])))
    }
}
