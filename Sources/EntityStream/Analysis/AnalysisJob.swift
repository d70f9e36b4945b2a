import EntityStreamCore
import EntityStreamModel

/// The work of one on-demand analysis, started by the ``AnalysisRuntime``.
///
/// ``run(in:)`` does the work, publishing results and progress through the
/// context as it goes (typed ``AnalysisResult``s), and returns its
/// ``AnalysisSummary`` (counts, what was used) when it completes. Throwing ends the job as `failed`, with the
/// error's description as the readable reason; `CancellationError` (or
/// any error thrown because the task was cancelled) ends it as `cancelled`.
/// The job must honour task cancellation: poll `Task.isCancelled` (or
/// ``AnalysisContext/checkCancellation()``) in long loops.
public protocol AnalysisJob: Sendable {
    func run(in context: AnalysisContext) async throws -> AnalysisSummary
}

/// A failure an analysis reports as it is (its message is the reason).
public struct AnalysisFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
