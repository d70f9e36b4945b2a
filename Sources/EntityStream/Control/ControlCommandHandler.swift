import EntityStreamCore

/// What control commands act on; the running mode (live connection or
/// replay) provides it.
public protocol ControlTarget: Sendable {
    /// Applies a new filter; returns the outcome (applied, rejected, timed out).
    func setFilter(_ filter: StreamFilter) async -> FilterOutcome
    /// Facts for the `status` command (connection status, URL, counters…).
    func statusFacts() async -> JSONObject
}

/// Runs control commands and publishes a `response` event for each, with
/// the command's `id`; errors (unparsable lines, unknown commands, invalid
/// where clauses) become responses with `"ok":false` and a message.
public struct ControlCommandHandler: Sendable {
    public let pipeline: StreamPipeline
    public let target: any ControlTarget

    public init(pipeline: StreamPipeline, target: any ControlTarget) {
        self.pipeline = pipeline
        self.target = target
    }

    /// Handles one line of standard input.
    public func handle(line: [UInt8]) async {
        let response: ControlResponse
        do {
            let command = try ControlCommand.parse(line: line)
            response = await execute(command)
        } catch {
            response = ControlResponse(id: error.id, command: error.command ?? "unknown", ok: false, error: error.message)
        }
        await pipeline.publish(StreamEvent(time: pipeline.clock.now(), payload: .response(response)))
    }

    private func execute(_ command: ControlCommand) async -> ControlResponse {
        switch command {
        case .queryEntities(let id, let whereText, let envelope, let trackIDs, let history):
            let schema = await pipeline.store.schema
            var query = EntityQuery(envelope: envelope)
            if let whereText {
                do { query.whereClause = try WhereClause(whereText, schema: schema) } catch {
                    return ControlResponse(id: id, command: command.name, ok: false, error: "invalid where clause: \(error)")
                }
            }
            if let trackIDs { query.trackIDs = Set(trackIDs) }
            let snapshots = await pipeline.store.query(query)
            var entities: [JSONValue] = []
            for snapshot in snapshots {
                var entity = JSONObject()
                entity.append(key: "entity", value: .int(snapshot.entity.entityID))
                entity.append(key: "track", value: Self.json(snapshot.entity.trackID))
                entity.append(key: "observations", value: .int(Int64(snapshot.observationCount)))
                entity.append(key: "latest", value: Self.json(snapshot.latest, id: snapshot.latestObservationID, schema: schema))
                if history != 0 {
                    let observations = await pipeline.store.observations(trackID: snapshot.entity.trackID, maximum: history)
                    entity.append(key: "history", value: .array(observations.map { Self.json($0.observation, id: $0.id, schema: schema) }))
                }
                entities.append(.object(entity))
            }
            return ControlResponse(id: id, command: command.name, ok: true,
                                   result: .object(JSONObject([("count", .int(Int64(entities.count))), ("entities", .array(entities))])))
        case .purgeAll(let id):
            let purged = await pipeline.store.purgeAll()
            return ControlResponse(id: id, command: command.name, ok: true, result: .object(JSONObject([("purgedEntities", .int(Int64(purged)))])))
        case .setFilter(let id, let filter):
            let outcome = await target.setFilter(filter)
            var result = JSONObject([("result", .string(outcome.result.rawValue))])
            if let reply = outcome.reply { result.append(key: "reply", value: reply) }
            return ControlResponse(id: id, command: command.name, ok: outcome.result == .applied, result: .object(result), error: outcome.error)
        case .status(let id):
            var facts = await target.statusFacts()
            facts.append(key: "entities", value: .int(Int64(await pipeline.store.entityCount)))
            facts.append(key: "observations", value: .int(Int64(await pipeline.store.observationCount)))
            return ControlResponse(id: id, command: command.name, ok: true, result: .object(facts))
        }
    }

    static func json(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return number.isFinite ? .double(number) : .null
        case .string(let text): return .string(text)
        case .date(let milliseconds): return .int(milliseconds)
        }
    }

    /// The observation as its id, receive time, and the Esri feature the
    /// output lines carry (``JSONWriter/appendFeature(_:fields:)``).
    static func json(_ observation: Observation, id: Int64, schema: Schema) -> JSONValue {
        var writer = JSONWriter(capacity: 256)
        writer.appendFeature(observation, fields: schema.fields)
        var object = JSONObject([("observation", .int(id)), ("received", .int(observation.receivedAt))])
        // appendFeature always writes valid JSON; parsing it back cannot fail.
        for member in (try? JSONParser.parse(writer.bytes))?.objectValue ?? JSONObject() {
            object.append(key: member.key, value: member.value)
        }
        return .object(object)
    }
}
