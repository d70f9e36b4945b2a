/// Where an on-demand analysis is in its life, as its `analysis` events say.
///
/// Every job publishes `accepted` first and exactly one final phase:
/// `summary` (it finished; the line carries its summary), `failed` (with a
/// readable reason) or `cancelled`. In between come any number of
/// `progress` lines (long work) and `result` lines (one per feature or
/// record, in the job's order).
public enum AnalysisPhase: String, Sendable, Hashable, CaseIterable {
    case accepted
    case progress
    case result
    case summary
    case failed
    case cancelled

    /// True for the phases that end a job.
    public var isFinal: Bool {
        switch self {
        case .summary, .failed, .cancelled: return true
        case .accepted, .progress, .result: return false
        }
    }
}
