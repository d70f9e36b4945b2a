import EntityStreamModel
/// The reconnect bookkeeping of one connection, as a value type driven by
/// the connection actor: it says what to do after each failure.
///
/// `attempt` is the number of the reconnection attempt in progress (0 for
/// the first connection after `connect()`). Waits after the immediate
/// attempts are the policy's interval ± its jitter, drawn from a generator
/// seeded at `init` (a seed reproduces the waits).
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
    private var random: SplitMix64

    public init(policy: ReconnectPolicy, seed: UInt64 = 0x5EED) {
        self.policy = policy
        random = SplitMix64(seed: seed)
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

    /// The connection had been up for `upMilliseconds` when it ended: one that
    /// lasted ``ReconnectPolicy/effectiveStableMilliseconds`` resets the count;
    /// a shorter one counts as a failed attempt, whatever it delivered.
    public mutating func connectionEnded(afterBeingUpFor upMilliseconds: Int64) {
        if upMilliseconds >= policy.effectiveStableMilliseconds {
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
        guard attempt > policy.immediateAttempts, policy.intervalMilliseconds > 0 else { return .retry(attempt: attempt, delayMilliseconds: 0) }
        let interval = Double(policy.intervalMilliseconds)
        let spread = interval * policy.jitter
        let delay = (interval - spread + 2 * spread * random.nextDouble()).rounded()
        return .retry(attempt: attempt, delayMilliseconds: max(1, Int64(delay)))
    }
}
