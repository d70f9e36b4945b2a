import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

/// `{"id":2,"command":"query-entities","where":…,"geometry":…,"trackIds":[…],"observations":5}`:
/// the entities whose latest observation matches (as the SDK's
/// `queryDynamicEntities`), optionally with that many history entries each
/// (newest first, -1 for all).
public struct QueryEntitiesCommand: ControlCommand {
    public static let name = "query-entities"
    public static let members: Set<String> = ["where", "geometry", "trackIds", "observations"]
    public let id: JSONValue
    public let whereClause: String?
    public let envelope: Envelope?
    public let trackIDs: Set<AttributeValue>?
    public let includeObservations: Int

    public init(members: CommandMembers) throws(ControlCommandError) {
        id = members.id
        whereClause = try members.string("where")
        envelope = try members.envelope("geometry")
        trackIDs = try members.trackIDs("trackIds")
        do { includeObservations = try members.integer("observations", in: -1...1_000_000) ?? 0 } catch {
            throw members.error(.observationsNotACount)
        }
    }

    public func start(in session: ControlSession) async -> ControlCommandOutcome {
        let store = session.pipeline.store
        let schema = await store.schema
        var query = EntityQuery(envelope: envelope, trackIDs: trackIDs)
        if let whereClause {
            do { query.whereClause = try WhereClause(whereClause, schema: schema) } catch {
                return response(ok: false, error: "invalid where clause: \(error)")
            }
        }
        var entities: [JSONValue] = []
        for snapshot in await store.query(query) {
            var entity = JSONObject()
            entity.append(key: "entity", value: .int(snapshot.entity.entityID))
            entity.append(key: "track", value: AttributeJSON.value(snapshot.entity.trackID))
            entity.append(key: "observations", value: .int(Int64(snapshot.observationCount)))
            entity.append(key: "latest", value: AttributeJSON.observation(snapshot.latest, id: snapshot.latestObservationID, schema: schema))
            if includeObservations != 0 {
                let history = await store.observations(trackID: snapshot.entity.trackID, maximum: includeObservations)
                entity.append(key: "history", value: .array(history.map { AttributeJSON.observation($0.observation, id: $0.id, schema: schema) }))
            }
            entities.append(.object(entity))
        }
        return response(ok: true, result: .object(JSONObject([("count", .int(Int64(entities.count))), ("entities", .array(entities))])))
    }
}
