/// How a stream connection retries, as the Maps SDK's
/// `maximumReconnectionAttempts` / `reconnectionInterval`: up to 12
/// attempts, the first 2 at once, the rest 10 s apart, then `failed`.
///
/// A connection that delivered data, or stayed up for at least
/// ``stableAfterMilliseconds``, resets the count. Close codes 4400, 4401,
/// 4403 and 4404 are final, except that after 4401/4403 a freshly fetched
/// token earns one retry; 1001 ("going away": a server restarting) is
/// retried, as current ArcGIS clients do.
public struct ReconnectPolicy: Sendable, Hashable {
    public var maximumAttempts: Int
    public var immediateAttempts: Int
    public var intervalMilliseconds: Int64
    public var stableAfterMilliseconds: Int64

    public init(maximumAttempts: Int = 12, immediateAttempts: Int = 2, intervalMilliseconds: Int64 = 10_000,
                stableAfterMilliseconds: Int64 = 10_000) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.immediateAttempts = max(0, immediateAttempts)
        self.intervalMilliseconds = max(0, intervalMilliseconds)
        self.stableAfterMilliseconds = max(0, stableAfterMilliseconds)
    }

    /// Close codes after which the client must not reconnect.
    public static let finalCloseCodes: Set<UInt16> = [4400, 4401, 4403, 4404]
    /// Close codes meaning "not authorized": worth one retry with a new token.
    public static let authorizationCloseCodes: Set<UInt16> = [4401, 4403]
}
