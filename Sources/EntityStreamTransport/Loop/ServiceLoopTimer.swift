/// When a ``ServiceLoop``'s one libwebsockets timer must fire, as a value:
/// the next keepalive tick and the shutdown deadline share that timer.
///
/// libwebsockets runs an expired timer at the start of `lws_service`, before
/// it polls, and then polls until its next timer, which may be its own
/// housekeeping one 30 s later; and its poll timeouts are whole milliseconds,
/// so `lws_service` may return a little before the instant the timer was
/// asked for. Either way the loop can find the timer spent while its own
/// clock says nothing is due yet. So the timer's callback wakes the loop and
/// reports ``fired()``, and ``turnEnded(now:)`` arms the timer again whenever
/// it is not armed while a tick or the deadline is still ahead: the loop
/// never sleeps without a timer for what it waits for.
///
/// Pure; time is injected.
struct ServiceLoopTimer<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What the loop does after a service turn.
    struct TurnAction: Equatable {
        /// Run the keepalive tick now.
        var tick: Bool
        /// Arm the timer for this instant (nil: leave it as it is).
        var arm: Instant?
    }

    let tickInterval: Duration?
    private(set) var nextTick: Instant?
    private(set) var deadline: Instant?
    /// True while libwebsockets holds the timer (armed and not yet fired).
    private(set) var isArmed = false

    init(tickInterval: Duration?) {
        self.tickInterval = tickInterval
    }

    /// The loop started at `now`: the instant to arm the timer for (nil without ticks).
    mutating func started(now: Instant) -> Instant? {
        guard let tickInterval else { return nil }
        nextTick = now.advanced(by: tickInterval)
        return arm()
    }

    /// The timer's callback ran: libwebsockets no longer holds it.
    mutating func fired() {
        isArmed = false
    }

    /// Shutdown began: the loop must wake by `deadline`. Returns the instant to arm the timer for.
    mutating func shutdownBegan(deadline: Instant) -> Instant? {
        self.deadline = deadline
        return arm()
    }

    /// After a service turn at `now`: whether the tick is due, and whether the
    /// timer must be armed again (after a tick, or when it fired early).
    mutating func turnEnded(now: Instant) -> TurnAction {
        var tick = false
        if let due = nextTick, let tickInterval, now >= due {
            tick = true
            var next = due.advanced(by: tickInterval)
            if next <= now { next = now.advanced(by: tickInterval) }
            nextTick = next
        }
        return TurnAction(tick: tick, arm: tick || !isArmed ? arm() : nil)
    }

    /// The earliest instant the loop waits for, with the timer marked armed (nil: nothing to wait for).
    private mutating func arm() -> Instant? {
        let wake: Instant?
        switch (nextTick, deadline) {
        case let (tick?, deadline?): wake = min(tick, deadline)
        case let (tick?, nil): wake = tick
        case let (nil, deadline?): wake = deadline
        case (nil, nil): wake = nil
        }
        isArmed = wake != nil
        return wake
    }
}
