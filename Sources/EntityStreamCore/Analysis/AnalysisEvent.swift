import EntityStreamModel
/// What an on-demand analysis says, as one `analysis` event on the bus (one
/// JSON line): the job (the `id` of the command that started it), the
/// command's name, the ``AnalysisPhase``, and the phase's content.
///
/// The content is typed where a line is a result (``AnalysisResult``) or
/// a summary (``AnalysisSummary``); `accepted`, `progress`, `failed` and
/// `cancelled` lines carry their members as written (a progress fraction,
/// a job status, a failure's `error`). ``members`` are written in order
/// after `"phase"`; ``feature``, for result lines that are features, is
/// written last as geometry and attributes. A value type.
public struct AnalysisEvent: Sendable, Hashable {
    public var job: JSONValue
    public var command: String
    public var phase: AnalysisPhase
    public var content: Content

    /// What the line says, by phase.
    public enum Content: Sendable, Hashable {
        /// `accepted`, `progress`, `failed`, `cancelled`: members as written.
        case members(JSONObject)
        /// A `result` line.
        case result(AnalysisResult)
        /// A `summary` line.
        case summary(AnalysisSummary)
    }

    /// An event whose members are written as they are (not a result line).
    public init(job: JSONValue, command: String, phase: AnalysisPhase, members: JSONObject = JSONObject()) {
        self.job = job
        self.command = command
        self.phase = phase
        self.content = .members(members)
    }

    /// A `result` line.
    public init(job: JSONValue, command: String, result: AnalysisResult) {
        self.job = job
        self.command = command
        self.phase = .result
        self.content = .result(result)
    }

    /// A `summary` line.
    public init(job: JSONValue, command: String, summary: AnalysisSummary) {
        self.job = job
        self.command = command
        self.phase = .summary
        self.content = .summary(summary)
    }

    /// The members the JSON line writes after `"phase"`, in order (a
    /// result's rendered from its typed values, a summary's facts).
    public var members: JSONObject {
        switch content {
        case .members(let members): return members
        case .result(let result): return result.members
        case .summary(let summary): return summary.facts
        }
    }

    /// The typed result of a `result` line.
    public var result: AnalysisResult? {
        if case .result(let result) = content { return result }
        return nil
    }

    /// The typed summary of a `summary` line.
    public var summary: AnalysisSummary? {
        if case .summary(let summary) = content { return summary }
        return nil
    }

    /// The feature a result line carries, if any.
    public var feature: AnalysisFeature? { result?.feature }
}
