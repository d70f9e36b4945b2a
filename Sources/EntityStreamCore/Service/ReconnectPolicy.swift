/// How a stream connection retries, as the Maps SDK's
/// `maximumReconnectionAttempts` / `reconnectionInterval`: up to 12
/// attempts, the first 2 at once, the rest 10 s apart (each wait drawn
/// within ±``jitter`` of the interval, so that many clients dropped together
/// do not come back together), then `failed`.
///
/// Only a connection that stayed up for at least ``stableAfterMilliseconds``
/// (by default the interval, and never less than
/// ``minimumStableMilliseconds``) resets the count: a short connection is a
/// failed attempt, however much data it delivered, so a server that drops
/// every connection at once (or after one message, or with an oversized
/// message) is retried by the policy and then given up, never in a loop.
/// Close codes 4400, 4401, 4403 and 4404 are final, except that after
/// 4401/4403 a freshly fetched token earns one retry; 1001 ("going away": a
/// server restarting) is retried, as current ArcGIS clients do.
public struct ReconnectPolicy: Sendable, Hashable {
    public var maximumAttempts: Int
    public var immediateAttempts: Int
    public var intervalMilliseconds: Int64
    /// How long a connection must have lasted to reset the count (at least
    /// ``minimumStableMilliseconds`` whatever is set here).
    public var stableAfterMilliseconds: Int64
    /// How far a wait may be from the interval, as a fraction of it (0…1).
    public var jitter: Double

    /// A connection shorter than this never resets the count.
    public static let minimumStableMilliseconds: Int64 = 1_000

    /// - Parameter stableAfterMilliseconds: nil: the interval.
    public init(maximumAttempts: Int = 12, immediateAttempts: Int = 2, intervalMilliseconds: Int64 = 10_000,
                stableAfterMilliseconds: Int64? = nil, jitter: Double = 0.2) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.immediateAttempts = max(0, immediateAttempts)
        self.intervalMilliseconds = max(0, intervalMilliseconds)
        self.stableAfterMilliseconds = max(0, stableAfterMilliseconds ?? intervalMilliseconds)
        self.jitter = jitter.isFinite ? min(max(jitter, 0), 1) : 0
    }

    /// The duration after which a connection resets the count.
    public var effectiveStableMilliseconds: Int64 { max(stableAfterMilliseconds, Self.minimumStableMilliseconds) }

    /// Close codes after which the client must not reconnect.
    public static let finalCloseCodes: Set<UInt16> = [4400, 4401, 4403, 4404]
    /// Close codes meaning "not authorized": worth one retry with a new token.
    public static let authorizationCloseCodes: Set<UInt16> = [4401, 4403]
}
