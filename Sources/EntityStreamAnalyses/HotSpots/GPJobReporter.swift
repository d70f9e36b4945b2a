import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamModel
import EntityStream

/// Publishes a geoprocessing job's life as `progress` lines of its analysis
/// — the one shape the local engine and a remote GP service share:
///
/// - a status line when the status changes or new messages arrive:
///   `{"jobId":"j…","jobStatus":"esriJobExecuting","messages":[{"type":"esriJobMessageTypeInformative","description":"Executing..."}]}`
///   (`messages` only when there are new ones);
/// - an engine progress line (local engine only, throttled by
///   ``HotSpotProgressThrottle``): `{"jobId":…,"jobStatus":"esriJobExecuting","fraction":0.42,"stage":"computingGiStar"}`.
///
/// A front end tells them apart by `fraction`. A value; Sendable.
public struct GPJobReporter: Sendable {
    public let context: AnalysisContext
    public let jobID: String

    public init(context: AnalysisContext, jobID: String) {
        self.context = context
        self.jobID = jobID
    }

    /// The status line.
    public func status(_ status: GPJobStatus, messages: [GPJobMessage] = []) async {
        var members = JSONObject([("jobId", .string(jobID)), ("jobStatus", .string(status.rawValue))])
        if !messages.isEmpty { members.append(key: "messages", value: Self.json(messages)) }
        await context.progress(members)
    }

    /// An engine progress line.
    public func progress(_ fraction: Double, stage: HotSpotMonitor.Stage, status: GPJobStatus) async {
        await context.progress(JSONObject([("jobId", .string(jobID)), ("jobStatus", .string(status.rawValue)),
                                           ("fraction", .double((fraction * 1000).rounded() / 1000)), ("stage", .string(stage.rawValue))]))
    }

    /// Messages as `[{"type", "description"}]`.
    public static func json(_ messages: [GPJobMessage]) -> JSONValue {
        .array(messages.map { .object(JSONObject([("type", .string($0.kind.rawValue)), ("description", .string($0.description))])) })
    }

    /// True for a status line (not an engine progress line): the lines a
    /// one-shot command prints on stdout.
    public static func isStatusLine(_ members: JSONObject) -> Bool {
        members["jobStatus"] != nil && members["fraction"] == nil
    }
}
