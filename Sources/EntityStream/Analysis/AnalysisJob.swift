import EntityStreamCore
import EntityStreamModel

/// The work of one on-demand analysis, started by the ``AnalysisRuntime``.
///
/// ``run(in:)`` does the work, publishing results and progress through the
/// context as it goes (typed ``AnalysisResult``s), and returns its
/// ``AnalysisSummary`` (counts, what was used) when it completes. Throwing ends the job as `failed`: the
/// ``AnalysisJobFailure`` keeps the error as thrown (throw the engine's typed error, or a case that adds
/// context, never its text) and writes its description as the reason; `CancellationError` (or
/// any error thrown because the task was cancelled) ends it as `cancelled`.
/// The job must honour task cancellation: poll `Task.isCancelled` (or
/// ``AnalysisContext/checkCancellation()``) in long loops.
public protocol AnalysisJob: Sendable {
    func run(in context: AnalysisContext) async throws -> AnalysisSummary
}

/// Why the context cannot give a job what it asked for.
public enum AnalysisContextError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The job (its command's name) reads the entity store, and the session has none (a one-shot command).
    case noStore(command: String)

    public var description: String {
        switch self {
        case .noStore(let command):
            return "\(command) needs a running stream's entity store (use it as a control command of connect, replay or the demo)"
        }
    }
}
