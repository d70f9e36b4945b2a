/// Timing of a ``GPJob`` (milliseconds): how long it stays submitted before
/// it starts by itself, and how long it may execute before it times out.
public struct GPJobTiming: Sendable, Hashable {
    /// From submission until ``GPJob/tick(at:)`` starts it (0: at the first tick).
    public var startDelay: Int64
    /// Longest execution before ``GPJob/tick(at:)`` times it out; nil: no limit.
    public var executionLimit: Int64?

    /// Negative values count as 0.
    public init(startDelay: Int64 = 0, executionLimit: Int64? = nil) {
        self.startDelay = max(startDelay, 0)
        self.executionLimit = executionLimit.map { max($0, 0) }
    }
}
