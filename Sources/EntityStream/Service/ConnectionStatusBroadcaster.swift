import EntityStreamCore
import EntityStreamLocking

/// The one way a connection's status changes leave it: the stream
/// connection (``StreamServiceConnection``) and the remote-service clients
/// (``FeatureLayerClient``, ``GeoprocessingClient``) each own one and
/// publish every change through it.
///
/// A change goes first to the relay (the event bus), awaited, so whoever
/// reacts to the change finds the event already queued, and an analysis's
/// `status` lines come out in order with its results without being
/// collected and flushed by hand; then to every ``updates()`` sequence
/// (unbounded buffers: status changes are few). Owners publish from their
/// actor, so changes are relayed and yielded in the order they happened.
/// Sendable.
public final class ConnectionStatusBroadcaster: Sendable {
    /// Where every change goes before the sequences see it.
    public typealias Relay = @Sendable (ConnectionStatusChange) async -> Void

    private struct Listeners {
        var next = 0
        var continuations: [Int: AsyncStream<ConnectionStatusChange>.Continuation] = [:]
    }

    private let relay: Relay?
    private let listeners = LockedState(Listeners())

    /// `relay` receives every change first (nil: the sequences only).
    public init(relay: Relay? = nil) {
        self.relay = relay
    }

    /// Every status change from now on.
    public func updates() -> AsyncStream<ConnectionStatusChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionStatusChange.self)
        let id = listeners.withLock { state -> Int in
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Relays `change` and then yields it to every sequence.
    public func publish(_ change: ConnectionStatusChange) async {
        await relay?(change)
        for continuation in listeners.withLock({ Array($0.continuations.values) }) { continuation.yield(change) }
    }
}
