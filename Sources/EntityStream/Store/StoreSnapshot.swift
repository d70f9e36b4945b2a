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

    /// The stream's status and the snapshot's time and size, as summaries write them (`"stream":{…}`).
    public var streamFacts: AnalysisStreamFacts {
        AnalysisStreamFacts(status: streamStatus,
                            snapshot: AnalysisStreamFacts.Snapshot(asOf: asOf, entities: contents.entityCount, observations: contents.observationCount))
    }
}
