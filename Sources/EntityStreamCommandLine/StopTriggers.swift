import EntityStreamCore
import Glibc
import EntityStreamLocking
import EntityStreamModel

/// Every way a command is told to stop, as one awaitable reason: SIGINT or
/// SIGTERM, `--duration` elapsing, or any part of the program calling
/// ``stop(_:)`` (a limit reached, the source ended, a write failed).
///
/// Watching signals (``StopSignals``) starts at `init`, which also ignores
/// SIGPIPE: a closed stdout shows up as a write error and ends the program
/// quietly. So create it before starting the work it stops. The duration
/// is watched by ``watchDuration()``, which the owner runs as a child task
/// (it returns at once without a duration, and when cancelled).
/// ``firstReason()`` returns the first reason given and ignores later ones;
/// call it once. When it returns, later signals are ignored. Sendable.
public struct StopTriggers<Reason: Sendable>: Sendable {
    private let reasons: AsyncStream<Reason>
    private let continuation: AsyncStream<Reason>.Continuation
    private let interrupted: Reason
    private let durationDeadline: Int64?
    private let durationElapsed: Reason
    private let clock: any EntityClock

    /// - Parameters:
    ///   - interrupted: the reason given on SIGINT or SIGTERM.
    ///   - durationSeconds: stop this long after `init` (nil: no time limit),
    ///     measured with `clock`, giving `durationElapsed`.
    package init(interrupted: Reason, durationSeconds: Double?, durationElapsed: Reason,
         clock: any EntityClock = SystemClock()) {
        let (reasons, continuation) = AsyncStream.makeStream(of: Reason.self)
        self.reasons = reasons
        self.continuation = continuation
        self.interrupted = interrupted
        self.durationElapsed = durationElapsed
        self.clock = clock
        signal(SIGPIPE, SIG_IGN)
        StopSignals.watch { _ in continuation.yield(interrupted) }
        durationDeadline = durationSeconds.map { clock.now() + Int64(($0 * 1000).rounded()) }
    }

    /// Asks to stop for `reason` (ignored when another reason came first).
    public func stop(_ reason: Reason) {
        continuation.yield(reason)
    }

    /// Waits for the duration to elapse, then asks to stop; returns at once
    /// without a duration, and when the calling task is cancelled.
    public func watchDuration() async {
        guard let durationDeadline else { return }
        do { try await clock.sleep(until: durationDeadline) } catch { return }
        continuation.yield(durationElapsed)
    }

    /// Waits for the first reason to stop, then stops watching signals.
    public func firstReason() async -> Reason {
        var iterator = reasons.makeAsyncIterator()
        let reason = await iterator.next() ?? interrupted
        continuation.finish()
        StopSignals.ignore()
        return reason
    }
}
