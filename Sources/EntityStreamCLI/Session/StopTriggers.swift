import EntityStreamCore

/// Every way a command is told to stop, as one awaitable reason: SIGINT or
/// SIGTERM, `--duration` elapsing, or any part of the program calling
/// ``stop(_:)`` (a limit reached, the source ended, a write failed).
///
/// Watching starts at `init` (which also makes a closed stdout a write error
/// rather than SIGPIPE; see ``SignalWatcher``), so create it before starting
/// the work it stops. ``firstReason()`` returns the first reason given and
/// ignores later ones; call it once. When it returns, signals are no longer
/// watched and the duration timer task has ended. Sendable.
struct StopTriggers<Reason: Sendable>: Sendable {
    private let reasons: AsyncStream<Reason>
    private let continuation: AsyncStream<Reason>.Continuation
    private let signals: SignalWatcher
    private let timer: Task<Void, Never>?
    private let interrupted: Reason

    /// - Parameters:
    ///   - interrupted: the reason given on SIGINT or SIGTERM.
    ///   - durationSeconds: stop this long after `init` (nil: no time limit),
    ///     measured with `clock`, giving `durationElapsed`.
    init(interrupted: Reason, durationSeconds: Double?, durationElapsed: Reason,
         clock: any EntityClock = SystemClock()) {
        let (reasons, continuation) = AsyncStream.makeStream(of: Reason.self)
        self.reasons = reasons
        self.continuation = continuation
        self.interrupted = interrupted
        signals = SignalWatcher { continuation.yield(interrupted) }
        if let durationSeconds {
            let deadline = clock.now() + Int64((durationSeconds * 1000).rounded())
            timer = Task {
                do { try await clock.sleep(until: deadline) } catch { return }
                continuation.yield(durationElapsed)
            }
        } else {
            timer = nil
        }
    }

    /// Asks to stop for `reason` (ignored when another reason came first).
    func stop(_ reason: Reason) {
        continuation.yield(reason)
    }

    /// Waits for the first reason to stop, then stops watching.
    func firstReason() async -> Reason {
        var iterator = reasons.makeAsyncIterator()
        let reason = await iterator.next() ?? interrupted
        continuation.finish()
        signals.cancel()
        timer?.cancel()
        await timer?.value
        return reason
    }
}
