/// How a stream connection retries, as the Maps SDK's
/// `maximumReconnectionAttempts` / `reconnectionInterval`: up to 12
/// attempts, the first 2 at once, the rest 10 s apart, then `failed`.
///
/// A connection that stayed up for at least ``stableAfterMilliseconds``
/// resets the count. Close codes 1001, 4400, 4401, 4403 and 4404 are final,
/// except that after 4401/4403 a freshly fetched token earns one retry.
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
    public static let finalCloseCodes: Set<UInt16> = [1001, 4400, 4401, 4403, 4404]
    /// Close codes meaning "not authorized": worth one retry with a new token.
    public static let authorizationCloseCodes: Set<UInt16> = [4401, 4403]
}

/// The reconnect bookkeeping of one connection, as a value type driven by
/// the connection actor: it says what to do after each failure.
///
/// `attempt` is the number of the reconnection attempt in progress (0 for
/// the first connection after `connect()`).
public struct ReconnectState: Sendable, Hashable {
    public enum Decision: Sendable, Hashable {
        /// Try again as attempt `attempt`, after waiting `delayMilliseconds`.
        case retry(attempt: Int, delayMilliseconds: Int64)
        /// Fetch the service description again; retry (as `attempt`) only if it
        /// carries a different token, else give up.
        case retryIfTokenChanged(attempt: Int)
        /// Stop: the status becomes `failed`.
        case giveUp
    }

    public let policy: ReconnectPolicy
    public private(set) var attempt = 0
    private var tokenRetryUsed = false

    public init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// `connect()` was called: a fresh episode starting at attempt 0.
    public mutating func start() {
        attempt = 0
        tokenRetryUsed = false
    }

    /// The upgrade succeeded: the token worked, so a later 4401/4403 earns a
    /// fresh token retry again.
    public mutating func connectionEstablished() {
        tokenRetryUsed = false
    }

    /// The connection had been up for `upMilliseconds` when it ended: long
    /// enough resets the count.
    public mutating func connectionEnded(afterBeingUpFor upMilliseconds: Int64) {
        if upMilliseconds >= policy.stableAfterMilliseconds {
            attempt = 0
            tokenRetryUsed = false
        }
    }

    /// What to do after attempt ``attempt`` failed or its connection closed,
    /// with the close code when the server sent one.
    public mutating func next(closeCode: UInt16?) -> Decision {
        if let closeCode, ReconnectPolicy.finalCloseCodes.contains(closeCode) {
            guard ReconnectPolicy.authorizationCloseCodes.contains(closeCode), !tokenRetryUsed,
                  attempt < policy.maximumAttempts else { return .giveUp }
            tokenRetryUsed = true
            attempt += 1
            return .retryIfTokenChanged(attempt: attempt)
        }
        guard attempt < policy.maximumAttempts else { return .giveUp }
        attempt += 1
        let delay = attempt <= policy.immediateAttempts ? 0 : policy.intervalMilliseconds
        return .retry(attempt: attempt, delayMilliseconds: delay)
    }
}
