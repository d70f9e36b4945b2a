import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// What a session offers its analyses: the entity store (nil for one-shot
/// commands that have no stream), the stream's status, options for remote
/// ArcGIS services, and named resources that analyses add (e.g. the open
/// rasters), looked up by type so that a new analysis adds its own kind of
/// resource without changing this type. A value type; Sendable.
public struct AnalysisEnvironment: Sendable {
    public var store: EntityStore?
    /// The stream's status now (`connected`, `replaying`, …); nil without a stream.
    public var streamStatus: (@Sendable () async -> StreamStatus)?
    public var clock: any EntityClock
    /// Options for requests to remote ArcGIS REST services.
    public var remote: RemoteServiceOptions
    private var resources: [ObjectIdentifier: any Sendable] = [:]

    public init(store: EntityStore? = nil, streamStatus: (@Sendable () async -> StreamStatus)? = nil, clock: any EntityClock = SystemClock(),
                remote: RemoteServiceOptions = RemoteServiceOptions()) {
        self.store = store
        self.streamStatus = streamStatus
        self.clock = clock
        self.remote = remote
    }

    /// The resource of type `Resource`, if the session provides one.
    public subscript<Resource: Sendable>(_ type: Resource.Type) -> Resource? {
        get { resources[ObjectIdentifier(type)] as? Resource }
        set { resources[ObjectIdentifier(type)] = newValue }
    }
}

/// How analyses reach remote ArcGIS REST services: the token (never printed
/// or stored), certificate trust, and the request timeout.
public struct RemoteServiceOptions: Sendable {
    public var token: String?
    public var allowSelfSignedCertificates = false
    public var http = HTTPClientConfiguration()

    public init(token: String? = nil, allowSelfSignedCertificates: Bool = false) {
        self.token = token
        self.allowSelfSignedCertificates = allowSelfSignedCertificates
        http.allowSelfSignedCertificates = allowSelfSignedCertificates
    }
}
