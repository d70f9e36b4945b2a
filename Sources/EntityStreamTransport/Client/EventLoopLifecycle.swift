/// The lifecycle of a ``TransportEventLoop`` as a value: starting on first
/// use, sharing the running loop, and shutting down — including a shutdown
/// that arrives while the loop is still starting, whose callers (and those
/// waiting for the loop) are all answered once the start has finished and
/// the freshly started loop has been stopped again.
///
/// `idle` → `starting` (one caller starts the loop; others wait) →
/// `running` → `shutDown`. A failed start returns to `idle` (the next
/// caller tries again) unless a shutdown was requested meanwhile. A pure
/// value used under the event loop's lock; each method says what the caller
/// must do. Generic so tests drive it with plain values.
struct EventLoopLifecycle<Loop, Waiter, ShutdownWaiter> {
    enum State {
        case idle
        case starting(waiters: [Waiter], shutdownWaiters: [ShutdownWaiter]?)
        case running(Loop)
        /// Shut down (or shutting down); the loop, if one was running, to await.
        case shutDown(Loop?)
    }

    /// What a caller that needs the loop does.
    enum Claim {
        /// Use this loop.
        case ready(Loop)
        /// Start it, then report with ``started(_:)``.
        case start
        /// Someone else is starting it: wait with ``wait(_:)``.
        case wait
        /// The loop was shut down.
        case refused
    }

    /// What ``wait(_:)`` did with the waiter.
    enum WaitOutcome {
        case stored
        case ready(Loop)
        case refused
    }

    /// What the starter does once the start has finished.
    enum StartOutcome {
        /// Hand the loop to the waiters (and use it).
        case running(Loop, waiters: [Waiter])
        /// The start failed: fail the waiters with the error.
        case failed(waiters: [Waiter])
        /// A shutdown arrived during the start: fail the waiters with
        /// `shutDown`, stop the loop (if it started), then resume the shutdown waiters.
        case shutDownAfterStart(Loop?, waiters: [Waiter], shutdownWaiters: [ShutdownWaiter])
    }

    /// What a caller of `shutdown()` does.
    enum ShutdownStep {
        /// Nothing ever ran: done at once.
        case done
        /// Stop (or await the stopping of) this loop.
        case stop(Loop)
        /// The loop is starting: the waiter was stored and is resumed after it has been stopped.
        case stored
    }

    private(set) var state = State.idle

    /// A caller needs the loop.
    mutating func claim() -> Claim {
        switch state {
        case .idle:
            state = .starting(waiters: [], shutdownWaiters: nil)
            return .start
        case .starting: return .wait
        case .running(let loop): return .ready(loop)
        case .shutDown: return .refused
        }
    }

    /// Stores `waiter` while the loop starts (or answers at once when the start already ended).
    mutating func wait(_ waiter: Waiter) -> WaitOutcome {
        switch state {
        case .starting(var waiters, let shutdownWaiters):
            waiters.append(waiter)
            state = .starting(waiters: waiters, shutdownWaiters: shutdownWaiters)
            return .stored
        case .running(let loop): return .ready(loop)
        case .idle, .shutDown: return .refused
        }
    }

    /// The start has finished with `loop` (nil: it failed).
    mutating func started(_ loop: Loop?) -> StartOutcome {
        guard case .starting(let waiters, let shutdownWaiters) = state else {
            // Not reachable: only the starter calls this, once.
            return .failed(waiters: [])
        }
        if let shutdownWaiters {
            state = .shutDown(loop)
            return .shutDownAfterStart(loop, waiters: waiters, shutdownWaiters: shutdownWaiters)
        }
        guard let loop else {
            state = .idle
            return .failed(waiters: waiters)
        }
        state = .running(loop)
        return .running(loop, waiters: waiters)
    }

    /// `shutdown()` was called; `waiter` is stored only when the answer is ``ShutdownStep/stored``.
    mutating func shutdown(_ waiter: ShutdownWaiter) -> ShutdownStep {
        switch state {
        case .idle:
            state = .shutDown(nil)
            return .done
        case .starting(let waiters, let shutdownWaiters):
            state = .starting(waiters: waiters, shutdownWaiters: (shutdownWaiters ?? []) + [waiter])
            return .stored
        case .running(let loop):
            state = .shutDown(loop)
            return .stop(loop)
        case .shutDown(let loop?):
            return .stop(loop)
        case .shutDown(nil):
            return .done
        }
    }
}
