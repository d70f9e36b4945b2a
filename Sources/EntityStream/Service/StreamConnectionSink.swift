import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel

/// Where a ``StreamServiceConnection`` delivers what it receives, in order.
///
/// Awaiting ``receive(_:)`` is the back-pressure path: while it has not
/// returned, the connection reads no further batch, its receive buffer
/// fills, and the socket's reading pauses.
public protocol StreamConnectionSink: Sendable {
    /// The schema changed: a description was (re)loaded, or fields were learned from data.
    func schemaChanged(_ schema: Schema) async
    /// Decoded messages of one receive batch (filter replies already handled).
    func receive(_ messages: [StreamMessage]) async
    /// Observations primed from the service's `keepLatestArchive` before the
    /// socket opened, in the stream's schema, to be stored and published as
    /// ordinary observations marked primed (``StreamEvent/primed``). By
    /// default they go to ``receive(_:)`` unmarked.
    func receivePrimed(_ messages: [StreamMessage]) async
    /// Status changes, filter outcomes and errors.
    func publish(_ event: StreamEvent) async
    /// A service description was loaded (before the socket opens).
    func descriptionLoaded(_ description: ServiceDescription) async
    /// One received batch exactly as it arrived, before decoding (for recording).
    func rawBatch(_ batch: MessageBatch, receivedAt: Int64) async
}

extension StreamConnectionSink {
    public func descriptionLoaded(_ description: ServiceDescription) async {}
    public func rawBatch(_ batch: MessageBatch, receivedAt: Int64) async {}
    public func receivePrimed(_ messages: [StreamMessage]) async { await receive(messages) }
}
