import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamModel

/// What a hot-spot analysis's selection of points reports (``HotSpotSource``):
/// for a file its path, `"rows"` and spatial reference (`"wkid"`,
/// `"spatialReference"`), then the `"timeField"`, the `"timeExtent"` (when
/// bounded), the `"where"` clause, the records `"matched"` and, for a file,
/// the records `"skippedWhileLoading"` (when any). A value type.
public struct HotSpotSelectionReport: Sendable, Hashable {
    /// The file the points were read from.
    public struct File: Sendable, Hashable {
        public var path: String
        public var rows: Int
        public var spatialReference: SpatialReference?

        public init(path: String, rows: Int, spatialReference: SpatialReference?) {
            self.path = path
            self.rows = rows
            self.spatialReference = spatialReference
        }
    }

    /// The file; nil for the entity store.
    public var file: File?
    /// The time field selected on (a file's own time field; nil: it has none).
    public var timeField: ReportedTimeField?
    public var timeExtent: TimeExtent?
    public var whereClause: String?
    public var matched: Int
    /// Records of the file skipped while loading (bad lines).
    public var skippedWhileLoading: Int

    public init(file: File?, timeField: ReportedTimeField?, timeExtent: TimeExtent?, whereClause: String?, matched: Int,
                skippedWhileLoading: Int = 0) {
        self.file = file
        self.timeField = timeField
        self.timeExtent = timeExtent
        self.whereClause = whereClause
        self.matched = matched
        self.skippedWhileLoading = skippedWhileLoading
    }

    /// Appends the members, in order.
    public func append(to members: inout JSONObject) {
        if let file {
            members.append("file", file.path)
            members.append("rows", file.rows)
            if let reference = file.spatialReference {
                if let wkid = reference.wkid { members.append("wkid", wkid) }
                members.append(key: "spatialReference", value: reference.json)
            }
        }
        if let timeField { members.append("timeField", timeField.text) }
        if let timeExtent, !timeExtent.isUnbounded { members.append(timeExtent: timeExtent) }
        if let whereClause { members.append("where", whereClause) }
        members.append("matched", matched)
        if skippedWhileLoading > 0 { members.append("skippedWhileLoading", skippedWhileLoading) }
    }
}

/// What a hot-spot analysis run here reports (``LocalHotSpotJob``):
/// `"jobId"`, `"jobStatus"`, the `"features"` written, the selection
/// (``HotSpotSelectionReport``), the processing and output spatial
/// references, then the engine's figures (``HotSpotSummaryJSON``: `n`,
/// `input`, `excluded`, `aggregation`, the distance band, the bins…).
/// A value type.
public struct LocalHotSpotReport: AnalysisReport {
    public var jobID: String
    public var jobStatus: GPJobStatus
    public var features: Int
    public var selection: HotSpotSelectionReport
    /// The spatial reference distances were measured in.
    public var processingSpatialReference: SpatialReference?
    /// The spatial reference results were written in.
    public var outputSpatialReference: SpatialReference?
    /// The engine's figures.
    public var engine: HotSpotSummary
    /// The fishnet the incidents were aggregated into (fishnet aggregation only).
    public var fishnet: Fishnet?

    public init(jobID: String, jobStatus: GPJobStatus, features: Int, selection: HotSpotSelectionReport,
                processingSpatialReference: SpatialReference?, outputSpatialReference: SpatialReference?,
                engine: HotSpotSummary, fishnet: Fishnet?) {
        self.jobID = jobID
        self.jobStatus = jobStatus
        self.features = features
        self.selection = selection
        self.processingSpatialReference = processingSpatialReference
        self.outputSpatialReference = outputSpatialReference
        self.engine = engine
        self.fishnet = fishnet
    }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("jobId", jobID)
        members.append("jobStatus", jobStatus.rawValue)
        members.append("features", features)
        selection.append(to: &members)
        if let processingSpatialReference { members.append(key: "processingSpatialReference", value: processingSpatialReference.json) }
        if let outputSpatialReference {
            if let wkid = outputSpatialReference.wkid { members.append("outputWKID", wkid) }
            members.append(key: "outputSpatialReference", value: outputSpatialReference.json)
        }
        members.append(contentsOf: HotSpotSummaryJSON.members(engine, fishnet: fishnet))
        return members
    }
}

/// What a hot-spot analysis run by a remote geoprocessing service reports
/// (``RemoteHotSpotJob``): `"jobId"`, `"jobStatus"` (succeeded), the
/// `"task"` (its URL, no token), the `"features"` written, the `"query"`
/// sent, the `"result"` parameter fetched, its `"outputWKID"`, the
/// `"messages"` the job reported, then the bins counted from `Gi_Bin`
/// (`"bins"`, `"hotSpots"`, `"coldSpots"`). A value type.
public struct RemoteHotSpotReport: AnalysisReport {
    public var task: String
    public var query: String?
    /// What the job produced, counted as its features were delivered.
    public var result: GPJobResult

    public init(task: String, query: String?, result: GPJobResult) {
        self.task = task
        self.query = query
        self.result = result
    }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("jobId", result.jobID)
        members.append("jobStatus", GPJobStatus.succeeded.rawValue)
        members.append("task", task)
        members.append("features", result.features)
        if let query { members.append("query", query) }
        if let name = result.resultName { members.append("result", name) }
        if let wkid = result.outputWKID { members.append("outputWKID", wkid) }
        members.append("messages", result.messages)
        HotSpotSummaryJSON.append(bins: result.bins, to: &members)
        return members
    }
}
