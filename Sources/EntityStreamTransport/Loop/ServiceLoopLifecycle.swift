/// The lifecycle of a ``ServiceLoop`` as a value: which commands it accepts,
/// when it starts closing its connections, and when its thread may exit.
///
/// States, in order: `running` (commands accepted and run after each
/// service turn) → `draining` (stop requested: connections are closing,
/// commands are still accepted and run, until none is live or the grace
/// deadline passes) → `stopped` (nothing accepted; the leftovers handed out
/// by ``exit()`` are run once more, with the context gone, so that every
/// accepted command runs exactly once and no caller waits forever).
///
/// A pure value driven by the loop under its lock: each method returns what
/// the loop must do. `Instant` is injected, so tests drive it with any
/// clock's instants.
struct ServiceLoopLifecycle<Command, Instant: InstantProtocol> where Instant.Duration == Duration {
    enum State: Equatable {
        case running
        case draining(deadline: Instant?)
        case stopped
    }

    /// What ``enqueue(_:)`` asks of the caller.
    enum EnqueueAction: Equatable {
        /// Queued as the first command of the turn: wake the service thread.
        case wake
        /// Queued behind others; the thread is already being woken.
        case queued
        /// The loop has stopped: the command was not taken and will never run.
        case refused
    }

    /// What the service thread does after a turn.
    enum TurnAction: Equatable {
        /// Go on servicing.
        case `continue`
        /// Stop was requested: ask every connection to close, and make sure the
        /// thread wakes by `deadline` even if nothing else happens.
        case beginShutdown(deadline: Instant)
        /// Leave the service loop and destroy the context.
        case exit
    }

    private(set) var state = State.running
    private var commands: [Command] = []
    private let shutdownGrace: Duration

    init(shutdownGrace: Duration) {
        self.shutdownGrace = shutdownGrace
    }

    /// A command from any thread, to run on the service thread.
    mutating func enqueue(_ command: Command) -> EnqueueAction {
        guard state != .stopped else { return .refused }
        commands.append(command)
        return commands.count == 1 ? .wake : .queued
    }

    /// True when a wake-up (`lws_cancel_service`) is still meaningful.
    var acceptsWakeUps: Bool { state != .stopped }

    /// Asks the loop to stop. Returns true when this is the first request
    /// (the caller wakes the service thread).
    mutating func requestStop() -> Bool {
        guard state == .running else { return false }
        state = .draining(deadline: nil)
        return true
    }

    /// The commands queued since the last turn, in the order they came.
    mutating func takeCommands() -> [Command] {
        defer { commands = [] }
        return commands
    }

    /// After a service turn (and its commands): what next.
    mutating func turnEnded(now: Instant, hasLiveConnections: Bool) -> TurnAction {
        switch state {
        case .running:
            return .continue
        case .draining(nil):
            let deadline = now.advanced(by: shutdownGrace)
            state = .draining(deadline: deadline)
            return .beginShutdown(deadline: deadline)
        case .draining(let deadline?):
            return !hasLiveConnections || now >= deadline ? .exit : .continue
        case .stopped:
            return .exit
        }
    }

    /// The loop leaves its service loop: from now on nothing is accepted.
    /// Returns what was accepted but not yet run; the loop runs it after the
    /// context is gone (each command then sees no context and fails cleanly).
    mutating func exit() -> [Command] {
        state = .stopped
        return takeCommands()
    }
}
