/// Cancellation looked at in a long synchronous loop (loading a file,
/// scanning its rows): every ``interval`` steps, the current task's
/// `Task.isCancelled`, so that Ctrl-C during a one-shot analysis of a large
/// file stops it within a fraction of a second instead of after the whole
/// file. Outside a task it never reports cancellation. A value type, one per loop.
public struct CancellationCheckpoint: Sendable {
    public let interval: Int
    private var remaining: Int

    public init(every interval: Int = 4096) {
        self.interval = max(1, interval)
        remaining = self.interval
    }

    /// True when the task has been cancelled (looked at once every ``interval`` calls).
    public mutating func isCancelled() -> Bool {
        remaining -= 1
        guard remaining <= 0 else { return false }
        remaining = interval
        return Task.isCancelled
    }
}
