import EntityStreamModel
/// The life of one on-demand analysis job as a state machine: every input
/// (start, a result, a cancel request, the work's end) returns the action
/// the runtime's I/O shell must perform, so ordering rules live here and
/// tests drive them directly.
///
/// Rules: `accepted` is published first (a job cancelled before it started
/// publishes only `cancelled`) and exactly one final line last;
/// a cancel before the work ends makes the final line `cancelled` unless
/// the work had already completed (a finished job cannot be cancelled);
/// a failure while cancelling is reported as `cancelled` (the cancel
/// caused it); nothing is published after the final line.
public struct AnalysisJobLifecycle: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case pending
        case running
        case cancelling
        case finished(AnalysisPhase)
    }

    /// How the work itself ended.
    public enum WorkOutcome: Sendable, Hashable {
        case completed(summary: AnalysisSummary)
        case failed(AnalysisJobFailure)
        case cancelled
    }

    /// What the shell must do.
    public enum Action: Sendable, Hashable {
        case publishAccepted
        case publish
        case cancelWork
        /// Publish the one final line (its phase is the content's).
        case publishFinal(AnalysisEvent.Content)
        /// Nothing to do (e.g. a second cancel request).
        case none
        /// The input is not valid in this state; report `reason` and drop it.
        case refuse(reason: String)
    }

    public private(set) var state: State = .pending

    public init() {}

    /// The job starts: publish `accepted`.
    public mutating func start() -> Action {
        guard state == .pending else { return .refuse(reason: "the job has already started") }
        state = .running
        return .publishAccepted
    }

    /// The work produced a result or a progress report.
    public mutating func report() -> Action {
        switch state {
        case .running, .cancelling: return .publish
        case .pending: return .refuse(reason: "the job has not started")
        case .finished: return .refuse(reason: "the job has finished")
        }
    }

    /// A cancel request arrived.
    public mutating func cancel() -> Action {
        switch state {
        case .pending:
            state = .finished(.cancelled)
            return .publishFinal(.cancelled)
        case .running:
            state = .cancelling
            return .cancelWork
        case .cancelling:
            return .none
        case .finished:
            return .refuse(reason: "the job has already finished")
        }
    }

    /// The work ended.
    public mutating func finish(_ outcome: WorkOutcome) -> Action {
        switch state {
        case .pending, .finished:
            return .refuse(reason: "the job is not running")
        case .running, .cancelling:
            let cancelling = state == .cancelling
            switch outcome {
            case .completed(let summary):
                state = .finished(.summary)
                return .publishFinal(.summary(summary))
            case .failed(let failure) where !cancelling:
                state = .finished(.failed)
                return .publishFinal(.failed(failure))
            case .failed, .cancelled:
                state = .finished(.cancelled)
                return .publishFinal(.cancelled)
            }
        }
    }

    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }
}
