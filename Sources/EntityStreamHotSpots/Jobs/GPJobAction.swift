/// What the owner of a ``GPJob`` must do after a transition. The job itself
/// performs nothing: an actor (a local job runner, the simulator's GPServer)
/// carries out each action in order.
public enum GPJobAction: Sendable, Hashable {
    /// Run the work (the analysis) now.
    case startWork
    /// Ask the running work to stop; report back with
    /// ``GPJob/workStopped(at:)`` (or ``GPJob/succeed(results:at:)`` /
    /// ``GPJob/fail(_:at:)`` if it finished first).
    case cancelWork
    /// The status changed: tell the world (an `analysis` event, the answer to
    /// the next status request).
    case publish(GPJobStatus)
    /// Call ``GPJob/tick(at:)`` at this time (epoch ms) unless something else
    /// happens first.
    case wakeUp(at: Int64)
}
