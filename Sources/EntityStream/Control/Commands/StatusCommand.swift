import EntityStreamCore
import EntityStreamModel

/// `{"id":4,"command":"status"}`: the connection's facts, the store's
/// counts and bytes (``EntityStoreState/storeBytes`` and its budget) and the
/// analyses running now.
public struct StatusCommand: ControlCommand {
    public static let name = "status"
    public static let members: Set<String> = []
    public let id: JSONValue

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        var facts = await session.target.sourceStatus().json
        facts.append(key: "entities", value: .int(Int64(await session.pipeline.store.entityCount)))
        facts.append(key: "observations", value: .int(Int64(await session.pipeline.store.observationCount)))
        let store = session.pipeline.store
        facts.append(key: "storeBytes", value: .int(Int64(await store.storeBytes)))
        facts.append(key: "maxStoreBytes", value: .int(Int64(await store.options.maximumStoreBytes)))
        facts.append(key: "analyses", value: .array(await session.runtime.runningJobs.sorted { "\($0)" < "\($1)" }))
        return response(ok: true, result: .object(facts))
    }
}
