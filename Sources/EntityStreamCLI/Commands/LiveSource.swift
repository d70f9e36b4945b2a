import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamModel

/// A live stream service as a session's source.
struct LiveSource: SessionSource, ControlTarget {
    let connection: StreamServiceConnection

    var controlTarget: any ControlTarget { self }

    /// Connects and follows the status until the connection fails for good
    /// (the reason) or is disconnected (nil).
    func run() async -> String? {
        let updates = connection.statusUpdates()
        _ = await connection.connect()
        for await change in updates {
            switch change.status {
            case .failed: return change.error ?? "the connection failed"
            case .disconnected: return nil
            default: continue
            }
        }
        return nil
    }

    /// Disconnects (a connection that already failed is left as it is, so
    /// the last status printed is the failure).
    func stop() async {
        if await connection.status != .failed { await connection.disconnect() }
    }

    func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
        await connection.setFilter(filter)
    }

    func sourceStatus() async -> any SourceStatus {
        LiveSourceStatus(connection: await connection.status, attempt: await connection.attempt,
                         service: ServiceURLs.redacted(connection.serviceURL), lastError: await connection.lastError,
                         undecodableMessages: await connection.undecodableMessageCount, filter: await connection.filter)
    }
}

/// What a live connection says of itself: its status, the attempt and the
/// last attempt's error, the service (its URL redacted), the messages it
/// could not decode and the filter in force.
struct LiveSourceStatus: SourceStatus {
    var connection: ConnectionStatus
    var attempt: Int?
    var service: String
    var lastError: String?
    var undecodableMessages: Int
    var filter: StreamFilter

    var status: StreamStatus { .connection(connection) }

    var json: JSONObject {
        var facts = JSONObject()
        facts.append(key: "status", value: .string(connection.rawValue))
        if let attempt { facts.append(key: "attempt", value: .int(Int64(attempt))) }
        facts.append(key: "service", value: .string(service))
        if let lastError { facts.append(key: "lastError", value: .string(lastError)) }
        facts.append(key: "undecodableMessages", value: .int(Int64(undecodableMessages)))
        var writer = JSONWriter(capacity: 256)
        JSONLinesFormatter.appendFilter(filter, to: &writer)
        if let value = try? JSONParser.parse(writer.bytes) { facts.append(key: "filter", value: value) }
        return facts
    }
}
