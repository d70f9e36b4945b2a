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

    func streamStatus() async -> StreamStatus {
        .connection(await connection.status)
    }

    func statusFacts() async -> JSONObject {
        var facts = JSONObject()
        facts.append(key: "status", value: .string(await connection.status.rawValue))
        facts.append(key: "attempt", value: .int(Int64(await connection.attempt)))
        facts.append(key: "service", value: .string(ServiceURLs.redacted(connection.serviceURL)))
        if let error = await connection.lastError { facts.append(key: "lastError", value: .string(error)) }
        facts.append(key: "undecodableMessages", value: .int(Int64(await connection.undecodableMessageCount)))
        var filter = JSONWriter(capacity: 256)
        JSONLinesFormatter.appendFilter(await connection.filter, to: &filter)
        if let value = try? JSONParser.parse(filter.bytes) { facts.append(key: "filter", value: value) }
        return facts
    }
}
