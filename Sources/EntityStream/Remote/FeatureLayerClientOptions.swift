import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// How a ``FeatureLayerClient`` authenticates, talks HTTP and reports status.
public struct FeatureLayerClientOptions: Sendable {
    /// Where the token comes from (nil: a `token` in the layer URL, else none).
    /// Share one source with the stream connection to share renewals.
    public var tokenSource: (any TokenSource)?
    /// Timeouts and the body limit (one page must fit in it).
    public var http = HTTPClientConfiguration()
    public var eventLoop: TransportEventLoop = .shared
    /// Stamps status changes and received features.
    public var clock: any EntityClock = SystemClock()
    /// Requests whose URL would be longer are sent as POST forms.
    public var maximumGETLength = 2000
    /// Awaited with every status change, in order, before the request goes on
    /// and before ``FeatureLayerClient/statusUpdates()`` sees it: the relay of
    /// an analysis's `status` lines to the bus.
    public var onStatus: ConnectionStatusBroadcaster.Relay?

    public init() {}
}
