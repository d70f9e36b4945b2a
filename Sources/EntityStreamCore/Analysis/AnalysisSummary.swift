import EntityStreamModel

/// What one analysis reports when it completes, as typed values: counts,
/// what was used (a file, a layer, a time extent), the engine's figures.
/// Each analysis has its own type (a file query's, a store statistics
/// job's, a hot-spot job's, …); the output formats write ``members``.
///
/// ``members`` renders the values as the summary line's JSON members, in
/// the order they are written after `"phase"`; that order is part of the
/// output, so each type fixes it in one place. ``columns`` and
/// ``incompleteInput`` are what the program reads of a summary (defaults:
/// nil). Conformers are value types.
public protocol AnalysisReport: Sendable, Hashable {
    /// The summary line's members, in order.
    var members: JSONObject { get }
    /// The columns of the job's table of records (statistics: the group-by
    /// fields, then the statistic names); nil for jobs whose results are features.
    var columns: [String]? { get }
    /// Why the answer is incomplete although the job ran to its end (part
    /// of its input could not be read), in words for the user; nil when complete.
    var incompleteInput: String? { get }
}

extension AnalysisReport {
    public var columns: [String]? { nil }
    public var incompleteInput: String? { nil }
}

/// What a completed analysis job reports: its ``AnalysisReport`` and, added
/// by the runtime, the stream it ran beside (``AnalysisStreamFacts``),
/// written last as `"stream":{…}`.
///
/// ``columns`` and ``incompleteInput`` are the report's: the feature
/// formats give a CSV table with no row its header from ``columns``, and a
/// one-shot command exits with status 1, saying why, when
/// ``incompleteInput`` is set. A value type.
public struct AnalysisSummary: Sendable, Hashable {
    /// The report, held by reference: an existential in the event's payload
    /// would make every ``StreamEvent`` address-only, costlier to move on the bus.
    private let box: ExistentialBox<any AnalysisReport>
    /// The stream's status and the store snapshot the job read; nil when the session has no stream.
    public var stream: AnalysisStreamFacts?

    public init(_ report: any AnalysisReport, stream: AnalysisStreamFacts? = nil) {
        self.box = ExistentialBox(report)
        self.stream = stream
    }

    /// What the analysis reports (read it as its own type: `summary.report as? FileQueryReport`).
    public var report: any AnalysisReport { box.value }

    /// The columns of the job's table of records (see ``AnalysisReport/columns``).
    public var columns: [String]? { report.columns }
    /// Why the answer is incomplete (see ``AnalysisReport/incompleteInput``).
    public var incompleteInput: String? { report.incompleteInput }

    /// The members the summary line writes after `"phase"`: the report's, then `stream`.
    public var members: JSONObject {
        var members = report.members
        if let stream, !stream.isEmpty { members.append(key: "stream", value: .object(stream.members)) }
        return members
    }

    public static func == (lhs: AnalysisSummary, rhs: AnalysisSummary) -> Bool {
        AnyHashable(lhs.report) == AnyHashable(rhs.report) && lhs.stream == rhs.stream
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(report))
        hasher.combine(stream)
    }
}

/// The stream an analysis ran beside, as its `accepted` and `summary` lines
/// say it (`"stream":{…}`): the stream's status and, for a job that read the
/// entity store, the snapshot's time and size. A value type.
public struct AnalysisStreamFacts: Sendable, Hashable {
    /// The store snapshot a job read.
    public struct Snapshot: Sendable, Hashable {
        /// When it was taken, epoch ms.
        public var asOf: Int64
        public var entities: Int
        public var observations: Int

        public init(asOf: Int64, entities: Int, observations: Int) {
            self.asOf = asOf
            self.entities = entities
            self.observations = observations
        }
    }

    /// The stream's status (nil: the session has no stream, or it was not known).
    public var status: StreamStatus?
    /// The snapshot the job read; nil for a job that read none.
    public var snapshot: Snapshot?

    public init(status: StreamStatus?, snapshot: Snapshot? = nil) {
        self.status = status
        self.snapshot = snapshot
    }

    /// True when there is nothing to write.
    public var isEmpty: Bool { status == nil && snapshot == nil }

    /// `{"status":…,"asOf":…,"asOfEpoch":…,"entities":…,"observations":…}`, each part when known.
    public var members: JSONObject {
        var members = JSONObject()
        if let status { members.append(key: "status", value: .string(status.description)) }
        if let snapshot {
            members.append(key: "asOf", value: .string(ISO8601Text.string(milliseconds: snapshot.asOf)))
            members.append(key: "asOfEpoch", value: .int(snapshot.asOf))
            members.append(key: "entities", value: .int(Int64(snapshot.entities)))
            members.append(key: "observations", value: .int(Int64(snapshot.observations)))
        }
        return members
    }
}

/// An immutable value held by reference (see ``AnalysisSummary``).
final class ExistentialBox<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
