import EntityStreamModel

/// What a completed analysis job reports: the facts its `summary` line
/// writes, and the typed parts the program itself acts on.
///
/// ``facts`` are only ever written (counts, what was used, the time extent,
/// the engine's figures), in order after `"phase"`; nothing reads them
/// back. ``columns`` and ``incompleteInput`` are what a reader of the
/// summary needs: the feature formats give a CSV table with no row its
/// header from ``columns``, and a one-shot command exits with status 1,
/// saying why, when ``incompleteInput`` is set. A value type.
public struct AnalysisSummary: Sendable, Hashable {
    public var facts: JSONObject
    /// The columns of the job's table of records (statistics: the group-by
    /// fields, then the statistic names); nil for jobs whose results are features.
    public var columns: [String]?
    /// Why the answer is incomplete although the job ran to its end (part
    /// of its input could not be read), in words for the user; nil when complete.
    public var incompleteInput: String?

    public init(_ facts: JSONObject = JSONObject(), columns: [String]? = nil, incompleteInput: String? = nil) {
        self.facts = facts
        self.columns = columns
        self.incompleteInput = incompleteInput
    }
}
