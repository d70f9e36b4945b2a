import EntityStreamModel
/// What an on-demand analysis says, as one `analysis` event on the bus (one
/// JSON line): the job (the `id` of the command that started it), the
/// command's name, the ``AnalysisPhase``, and the phase's content.
///
/// `members` are written in order after `"phase"` (for example the
/// summary's counts, a progress fraction, a statistics record's `group` and
/// `statistics`, a failure's `error`); `feature`, for result lines that are
/// features, is written last as geometry and attributes. A value type.
public struct AnalysisEvent: Sendable, Hashable {
    public var job: JSONValue
    public var command: String
    public var phase: AnalysisPhase
    public var members: JSONObject
    public var feature: AnalysisFeature?
    /// The keys of a statistics record's `group` and `statistics` values that
    /// are dates (epoch ms): numbers in Esri JSON, ISO-8601 text in GeoJSON and CSV.
    public var dateKeys: [String]

    public init(job: JSONValue, command: String, phase: AnalysisPhase, members: JSONObject = JSONObject(), feature: AnalysisFeature? = nil,
                dateKeys: [String] = []) {
        self.job = job
        self.command = command
        self.phase = phase
        self.members = members
        self.feature = feature
        self.dateKeys = dateKeys
    }
}
