/// The lifecycle of one stream-service connection as a value: connecting,
/// connected, waiting between attempts, disconnecting, failed — with the
/// reconnect policy (``ReconnectState``) folded in as the only count of attempts.
///
/// The connection actor (`StreamServiceConnection`) reports what happened
/// and carries out what each method returns; every transition happens
/// synchronously, so a `disconnect()` suspended in its teardown can no
/// longer be mistaken for `connected`, and a `connect()` arriving then waits
/// for the teardown instead of starting a second runner. Each `connect()`
/// from rest starts an *episode* (numbered); reports from an episode that is
/// no longer current are recognised as stale and change nothing.
///
/// Retry rules: after an attempt ends, the policy decides (immediate
/// attempts, then the interval, then `failed`). A failure the attempt
/// marks as not retryable (the service answered that something is wrong:
/// an unknown service, a bad filter, an untrusted certificate) is final when
/// it happens on the first attempt of an episode — a later attempt, after
/// the service has worked, retries it like any other. Close codes follow
/// ``ReconnectPolicy``. Only a connection that stayed up for the policy's
/// stable duration resets the count; a shorter one is a failed attempt,
/// whatever it delivered (so a server that closes after one message is
/// retried with the policy's waits and then given up, never in a loop).
/// Pure; times are epoch milliseconds passed in, and the waits' jitter comes
/// from a generator seeded at `init`.
public struct StreamConnectionStateMachine: Sendable {
    public enum Phase: Sendable, Hashable {
        case disconnected
        /// An attempt is under way (description, then socket).
        case connecting
        case connected
        /// Between attempts, until `until` (epoch ms).
        case waiting(until: Int64)
        /// `disconnect()` is tearing the episode down.
        case disconnecting
        case failed
    }

    /// How an attempt ended.
    public enum AttemptEnd: Sendable, Hashable {
        /// The server closed the socket with a close frame.
        case closed(code: UInt16?, reason: String)
        /// The attempt failed (before or after connecting).
        case failed(message: String, retryable: Bool)
        /// The description's token was the one just refused (after 4401/4403).
        case tokenUnchanged(message: String)
    }

    /// What to do after an attempt ended.
    public enum NextStep: Sendable, Hashable {
        /// Try again now as `attempt`; fetch a new token first when asked.
        case retryNow(attempt: Int, requireNewToken: Bool, error: String)
        /// Wait until `deadline` (epoch ms), then try again as `attempt`.
        case retryAt(deadline: Int64, attempt: Int, error: String)
        /// Give up: the status becomes `failed` with this error.
        case fail(error: String)
        /// The episode is no longer current: stop quietly.
        case stale
    }

    public enum ConnectAction: Sendable, Hashable {
        case alreadyConnected
        /// Start running `episode` (status `connecting`, attempt 0).
        case startEpisode(Int)
        /// An episode is running: wait for its outcome.
        case awaitOutcome
        /// A disconnect is tearing down: wait for it, then ask again.
        case awaitTeardown
    }

    public enum DisconnectAction: Sendable, Hashable {
        case nothing
        /// From `failed`: just report `disconnected`.
        case reportDisconnected
        /// Stop `episode` (cancel its runner, close its socket), then call ``teardownFinished()``.
        case tearDown(episode: Int)
        /// Another disconnect is tearing down: wait for it.
        case awaitTeardown
    }

    public private(set) var phase = Phase.disconnected
    private var reconnect: ReconnectState
    /// The current (or last) episode.
    public private(set) var episode = 0
    /// Why the last attempt failed, if it did.
    public private(set) var lastError: String?
    private var requireNewToken = false
    private var connectedAt: Int64?

    /// - Parameter seed: seeds the jitter of the waits between attempts.
    public init(policy: ReconnectPolicy, seed: UInt64 = 0x5EED) {
        reconnect = ReconnectState(policy: policy, seed: seed)
    }

    /// The reconnection attempt under way (0 for the first after `connect()`).
    public var attempt: Int { reconnect.attempt }

    /// The Maps SDK's four states.
    public var status: ConnectionStatus {
        switch phase {
        case .disconnected, .disconnecting: return .disconnected
        case .connecting, .waiting: return .connecting
        case .connected: return .connected
        case .failed: return .failed
        }
    }

    /// True while `episode` is the running one (its runner should go on).
    public func isCurrent(_ episode: Int) -> Bool {
        guard episode == self.episode else { return false }
        switch phase {
        case .connecting, .connected, .waiting: return true
        case .disconnected, .disconnecting, .failed: return false
        }
    }

    // MARK: connect / disconnect

    public mutating func connectRequested() -> ConnectAction {
        switch phase {
        case .connected: return .alreadyConnected
        case .connecting, .waiting: return .awaitOutcome
        case .disconnecting: return .awaitTeardown
        case .disconnected, .failed:
            episode += 1
            reconnect.start()
            lastError = nil
            requireNewToken = false
            connectedAt = nil
            phase = .connecting
            return .startEpisode(episode)
        }
    }

    public mutating func disconnectRequested() -> DisconnectAction {
        switch phase {
        case .disconnected: return .nothing
        case .failed:
            phase = .disconnected
            return .reportDisconnected
        case .disconnecting: return .awaitTeardown
        case .connecting, .connected, .waiting:
            phase = .disconnecting
            return .tearDown(episode: episode)
        }
    }

    /// The teardown of a disconnect has finished.
    public mutating func teardownFinished() {
        if phase == .disconnecting { phase = .disconnected }
    }

    // MARK: The runner's reports

    /// An attempt of `episode` starts: true when it must insist on a new token.
    public mutating func attemptStarting(episode: Int) -> Bool {
        guard isCurrent(episode) else { return false }
        phase = .connecting
        return requireNewToken
    }

    /// The socket of `episode` opened at `now`. False when the episode is stale.
    public mutating func established(episode: Int, now: Int64) -> Bool {
        guard isCurrent(episode) else { return false }
        phase = .connected
        connectedAt = now
        requireNewToken = false
        reconnect.connectionEstablished()
        return true
    }

    /// The attempt of `episode` ended at `now`: what next.
    public mutating func attemptEnded(episode: Int, _ end: AttemptEnd, now: Int64) -> NextStep {
        guard isCurrent(episode) else { return .stale }
        let wasFirstAttempt = reconnect.attempt == 0 && connectedAt == nil
        if let connectedAt {
            reconnect.connectionEnded(afterBeingUpFor: now - connectedAt)
            self.connectedAt = nil
        }
        let error: String
        let closeCode: UInt16?
        switch end {
        case .closed(let code, let reason):
            error = "server closed the connection (\(code.map(String.init) ?? "no code")\(reason.isEmpty ? "" : ": \(reason)"))"
            closeCode = code
        case .failed(let message, let retryable):
            error = message
            closeCode = nil
            if !retryable && wasFirstAttempt { return fail(error) }
        case .tokenUnchanged(let message):
            return fail(message)
        }
        lastError = error
        switch reconnect.next(closeCode: closeCode) {
        case .giveUp:
            return fail(error)
        case .retry(let attempt, let delay):
            if delay > 0 {
                let deadline = now + delay
                phase = .waiting(until: deadline)
                return .retryAt(deadline: deadline, attempt: attempt, error: error)
            }
            phase = .connecting
            return .retryNow(attempt: attempt, requireNewToken: false, error: error)
        case .retryIfTokenChanged(let attempt):
            requireNewToken = true
            phase = .connecting
            return .retryNow(attempt: attempt, requireNewToken: true, error: error)
        }
    }

    private mutating func fail(_ error: String) -> NextStep {
        lastError = error
        phase = .failed
        return .fail(error: error)
    }
}
