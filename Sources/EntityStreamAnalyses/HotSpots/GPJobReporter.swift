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
        await context.progress(GPJobProgress(jobID: jobID, status: status, messages: messages))
    }

    /// An engine progress line.
    public func progress(_ fraction: Double, stage: HotSpotMonitor.Stage, status: GPJobStatus) async {
        await context.progress(GPJobProgress(jobID: jobID, status: status, engine: GPJobProgress.Engine(fraction: fraction, stage: stage)))
    }

    /// Messages as `[{"type", "description"}]`.
    public static func json(_ messages: [GPJobMessage]) -> JSONValue {
        .array(messages.map { .object(JSONObject([("type", .string($0.kind.rawValue)), ("description", .string($0.description))])) })
    }
}

/// One `progress` line of a geoprocessing job (``GPJobReporter``): a status
/// line (the job's id and status, and the messages not reported before), or
/// an engine progress line (the local engine's ``Engine`` fraction and stage).
/// A value type.
public struct GPJobProgress: AnalysisProgress {
    /// How far the local engine has got.
    public struct Engine: Sendable, Hashable {
        /// Done, 0…1, rounded to thousandths as written.
        public var fraction: Double
        public var stage: HotSpotMonitor.Stage

        public init(fraction: Double, stage: HotSpotMonitor.Stage) {
            self.fraction = (fraction * 1000).rounded() / 1000
            self.stage = stage
        }
    }

    public var jobID: String
    public var status: GPJobStatus
    /// The messages new since the last status line (status lines only).
    public var messages: [GPJobMessage]
    /// The engine's progress; nil for a status line.
    public var engine: Engine?

    public init(jobID: String, status: GPJobStatus, messages: [GPJobMessage] = [], engine: Engine? = nil) {
        self.jobID = jobID
        self.status = status
        self.messages = messages
        self.engine = engine
    }

    /// True for a status line (not an engine progress line): the lines a
    /// one-shot command prints on stdout.
    public var isStatusLine: Bool { engine == nil }

    /// `"jobId"`, `"jobStatus"`, then `"messages"` (when there are new ones)
    /// or `"fraction"` and `"stage"`.
    public var members: JSONObject {
        var members = JSONObject([("jobId", .string(jobID)), ("jobStatus", .string(status.rawValue))])
        if !messages.isEmpty { members.append(key: "messages", value: GPJobReporter.json(messages)) }
        if let engine {
            members.append(key: "fraction", value: .double(engine.fraction))
            members.append(key: "stage", value: .string(engine.stage.rawValue))
        }
        return members
    }

    /// `jobId j1 · jobStatus esriJobExecuting · Executing... | Done`: the messages by their descriptions.
    public var text: String {
        var parts: [(key: String?, value: String)] = [("jobId", jobID), ("jobStatus", status.rawValue)]
        if !messages.isEmpty { parts.append((nil, messages.map(\.description).joined(separator: " | "))) }
        if let engine {
            parts.append(("fraction", "\(JSONValue.double(engine.fraction))"))
            parts.append(("stage", engine.stage.rawValue))
        }
        return AnalysisProgressText.join(parts)
    }
}
