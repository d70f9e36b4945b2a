import EntityStreamCore
import EntityStreamModel

/// A live service the server relays (`entitystream serve`), served beside
/// or instead of simulated ones, under the stream's name `NAME`:
/// - `NAME/StreamServer` and its WebSocket: every observation its source
///   publishes (``LiveStream``), through each subscriber's own filter;
/// - with a ``store``: `NAME_Latest/FeatureServer/0` (each entity's latest
///   observation; the description's `keepLatestArchive`),
///   `NAME_Tracks/FeatureServer/0` (the retained history, time-aware) and
///   `NAME/GPServer/911 Calls Hotspot` (hot spots of the retained
///   observations), each answered from a fresh snapshot of the store;
/// - its source's state in `/status`.
public struct LiveServiceSpecification: Sendable {
    public var stream: LiveStream
    public var store: LiveStore?
    /// The source's state for `/status` and the map page (status, what it
    /// reads, its last error); never a credential.
    public var sourceStatus: @Sendable () async -> JSONObject

    public init(stream: LiveStream, store: LiveStore?, sourceStatus: @escaping @Sendable () async -> JSONObject = { JSONObject() }) {
        self.stream = stream
        self.store = store
        self.sourceStatus = sourceStatus
    }

    public var name: String { stream.name }
    /// The latest-observation layer's name.
    public var latestLayerName: String { "\(name)_Latest" }
    /// The history layer's name.
    public var tracksLayerName: String { "\(name)_Tracks" }
}
