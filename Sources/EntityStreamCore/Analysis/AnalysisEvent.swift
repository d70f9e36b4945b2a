import EntityStreamModel
/// What an on-demand analysis says, as one `analysis` event on the bus (one
/// JSON line): the job (the `id` of the command that started it), the
/// command's name, and what the line says (``Content``), whose case is the
/// ``AnalysisPhase``.
///
/// Every phase's content is typed: the stream's status when accepted, an
/// ``AnalysisProgress``, an ``AnalysisResult``, an ``AnalysisSummary``, the
/// failure. ``members`` renders it, in the order the line writes its members
/// after `"phase"`; ``feature``, for result lines that are features, is
/// written last as geometry and attributes. A value type.
public struct AnalysisEvent: Sendable, Hashable {
    public var job: JSONValue
    public var command: String
    public var content: Content

    /// What the line says, by phase.
    public enum Content: Sendable, Hashable {
        /// `accepted`, with the stream's status when the session has a stream (`"stream":{"status":…}`).
        case accepted(stream: StreamStatus?)
        /// A `progress` line.
        case progress(AnyAnalysisProgress)
        /// A `result` line.
        case result(AnalysisResult)
        /// A `summary` line.
        case summary(AnalysisSummary)
        /// A `failed` line: `"error"`, the failure's text.
        case failed(AnalysisJobFailure)
        /// A `cancelled` line (no members).
        case cancelled

        /// The phase this content is.
        public var phase: AnalysisPhase {
            switch self {
            case .accepted: return .accepted
            case .progress: return .progress
            case .result: return .result
            case .summary: return .summary
            case .failed: return .failed
            case .cancelled: return .cancelled
            }
        }

        /// The members the line writes after `"phase"`, in order.
        public var members: JSONObject {
            switch self {
            case .accepted(let stream):
                guard let stream else { return JSONObject() }
                return JSONObject([("stream", .object(AnalysisStreamFacts(status: stream).members))])
            case .progress(let progress): return progress.value.members
            case .result(let result): return result.members
            case .summary(let summary): return summary.members
            case .failed(let failure): return JSONObject([("error", .string(failure.text))])
            case .cancelled: return JSONObject()
            }
        }
    }

    public init(job: JSONValue, command: String, content: Content) {
        self.job = job
        self.command = command
        self.content = content
    }

    /// A `result` line.
    public init(job: JSONValue, command: String, result: AnalysisResult) {
        self.init(job: job, command: command, content: .result(result))
    }

    /// A `summary` line.
    public init(job: JSONValue, command: String, summary: AnalysisSummary) {
        self.init(job: job, command: command, content: .summary(summary))
    }

    /// Where the job is in its life.
    public var phase: AnalysisPhase { content.phase }

    /// The members the JSON line writes after `"phase"`, in order, rendered
    /// from the typed content.
    public var members: JSONObject { content.members }

    /// The typed progress of a `progress` line.
    public var progress: (any AnalysisProgress)? {
        if case .progress(let progress) = content { return progress.value }
        return nil
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

    /// The failure of a `failed` line.
    public var failure: AnalysisJobFailure? {
        if case .failed(let failure) = content { return failure }
        return nil
    }

    /// The feature a result line carries, if any.
    public var feature: AnalysisFeature? { result?.feature }
}

/// Why an analysis job failed: the error its work threw, and the text its
/// `failed` line writes as `"error"` (the error's description on one line,
/// bounded). Classify on ``error``'s type and case, never on ``text``.
/// Two failures are equal when their errors are of one type and their texts
/// are equal. A value type.
public struct AnalysisJobFailure: Sendable, Hashable, CustomStringConvertible {
    /// The error the job threw.
    public let error: any Error
    /// What the `failed` line says.
    public let text: String

    public init(_ error: any Error) {
        self.error = error
        self.text = OneLine.bounded(String(describing: error))
    }

    public var description: String { text }

    public static func == (lhs: AnalysisJobFailure, rhs: AnalysisJobFailure) -> Bool {
        ObjectIdentifier(type(of: lhs.error)) == ObjectIdentifier(type(of: rhs.error)) && lhs.text == rhs.text
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
