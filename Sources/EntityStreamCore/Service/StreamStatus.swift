/// What a session's stream is doing, in one word: every analysis's
/// `accepted` and `summary` lines carry it (`stream.status`), and a snapshot
/// of the store records it. A live service's is its ``ConnectionStatus``; a
/// replay's is `replaying` until the file has been played, then `ended`; a
/// JetStream consumer's is `consuming`.
public enum StreamStatus: Sendable, Hashable, CustomStringConvertible {
    /// A live stream service, by its connection's status.
    case connection(ConnectionStatus)
    /// A recording being replayed.
    case replaying
    /// A replay whose file has been played to its end.
    case ended
    /// A JetStream log being consumed.
    case consuming

    /// The word printed: `connected`, `replaying`, `ended`, `consuming`, ….
    public var description: String {
        switch self {
        case .connection(let status): return status.rawValue
        case .replaying: return "replaying"
        case .ended: return "ended"
        case .consuming: return "consuming"
        }
    }
}
