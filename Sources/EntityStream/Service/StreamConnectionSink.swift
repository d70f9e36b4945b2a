import EntityStreamCore

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
    /// Status changes, filter outcomes and errors.
    func publish(_ event: StreamEvent) async
}
