import EntityStreamCore
import EntityStreamModel

/// A consistent copy of the entity store at one instant: what an analysis
/// reads while the stream goes on. Copying is O(1); the store then copies
/// only the parts it changes (copy-on-write), so the snapshot never sees a
/// mix of two states. A value type; Sendable.
public struct StoreSnapshot: Sendable {
    public let contents: StoreContents
    /// When it was taken, epoch ms (the store's clock).
    public let asOf: Int64
    /// The stream's status when it was taken, when the session has a stream.
    public var streamStatus: StreamStatus?

    public init(contents: StoreContents, asOf: Int64, streamStatus: StreamStatus? = nil) {
        self.contents = contents
        self.asOf = asOf
        self.streamStatus = streamStatus
    }

    /// `{"status":…,"asOf":…,"asOfEpoch":…,"entities":…,"observations":…}` for summaries.
    public var streamMembers: JSONObject {
        var members = JSONObject()
        if let streamStatus { members.append(key: "status", value: .string(streamStatus.description)) }
        members.append(key: "asOf", value: .string(ISO8601Text.string(milliseconds: asOf)))
        members.append(key: "asOfEpoch", value: .int(asOf))
        members.append(key: "entities", value: .int(Int64(contents.entityCount)))
        members.append(key: "observations", value: .int(Int64(contents.observationCount)))
        return members
    }
}
