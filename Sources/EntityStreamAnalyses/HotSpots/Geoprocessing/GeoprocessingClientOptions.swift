import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel
import EntityStream

/// How a ``GeoprocessingClient`` authenticates, talks HTTP and reports status.
public struct GeoprocessingClientOptions: Sendable {
    /// Where the token comes from (nil: a `token` in the task URL, else none).
    public var tokenSource: (any TokenSource)?
    /// Timeouts and the body limit (a whole result must fit in it).
    public var http = HTTPClientConfiguration()
    public var eventLoop: TransportEventLoop = .shared
    /// Stamps status changes.
    public var clock: any EntityClock = SystemClock()
    /// Awaited with every status change, in order, before the request goes on
    /// and before ``GeoprocessingClient/statusUpdates()`` sees it: the relay of
    /// an analysis's `status` lines to the bus.
    public var onStatus: ConnectionStatusBroadcaster.Relay?

    public init() {
        http.maximumBodySize = 256 * 1024 * 1024
    }
}
