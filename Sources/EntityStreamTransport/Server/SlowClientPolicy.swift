/// What a server does when a WebSocket client reads slower than the server
/// sends and its bounded outbound queue is full.
public enum SlowClientPolicy: Sendable, Hashable {
    /// `send` suspends until the queue has room: the sender slows to that
    /// client's pace (other clients are unaffected).
    case waitForSpace
    /// The oldest queued messages are dropped (and counted) to make room.
    case dropOldest
    /// The client is disconnected with close code 1008.
    case disconnect
}
