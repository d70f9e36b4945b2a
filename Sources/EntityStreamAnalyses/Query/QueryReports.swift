import EntityStreamCore
import EntityStreamModel

/// What a query of a remote layer reports (``LayerQueryJob``): `"layer"`
/// (its URL, no token), `"count"`, then, when features were fetched, how
/// (``LayerPaging``) and the `"timeExtent"` asked for. A value type.
public struct LayerQueryReport: AnalysisReport {
    public var layer: String
    /// Features written (or counted, for `returnCountOnly`).
    public var count: Int
    /// How the features were fetched; nil for a count.
    public var paging: LayerPaging?
    public var timeExtent: TimeExtent?

    public init(layer: String, count: Int, paging: LayerPaging? = nil, timeExtent: TimeExtent? = nil) {
        self.layer = layer
        self.count = count
        self.paging = paging
        self.timeExtent = timeExtent
    }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("layer", layer)
        members.append("count", count)
        paging?.append(to: &members)
        members.append(timeExtent: timeExtent)
        return members
    }
}

/// What a `query-observations` request reports (``QueryObservationsJob``):
/// `"timeField"` and `"timeExtent"` selected on, `"count"`, then, unless only
/// counted, `"matched"` (before the limit) and `"exceededLimit"`. A value type.
public struct ObservationQueryReport: AnalysisReport {
    public var timeField: ReportedTimeField
    public var timeExtent: TimeExtent
    /// Observations written (or counted).
    public var count: Int
    /// Observations that matched before the limit; nil for a count.
    public var matched: Int?

    public init(timeField: ReportedTimeField, timeExtent: TimeExtent, count: Int, matched: Int? = nil) {
        self.timeField = timeField
        self.timeExtent = timeExtent
        self.count = count
        self.matched = matched
    }

    /// True when the limit left matches out.
    public var exceededLimit: Bool { (matched ?? 0) > count }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("timeField", timeField.text)
        members.append(timeExtent: timeExtent)
        members.append("count", count)
        if let matched {
            members.append("matched", matched)
            members.append(key: "exceededLimit", value: .bool(exceededLimit))
        }
        return members
    }
}

/// What a query of a file reports (``FileQueryJob``): `"file"`, its
/// `"rows"` (when it was read to its end), the answer (`"count"`, or an
/// extent query's `"count"` and `"extent"`), then the `"timeExtent"` asked
/// for. A value type.
public struct FileQueryReport: AnalysisReport {
    /// What the query answered.
    public enum Answer: Sendable, Hashable {
        /// Features written, counted, or object ids answered.
        case count(Int)
        /// An extent query: the extent (`"extent":[xmin,ymin,xmax,ymax]`, or
        /// null for no feature), with the count when asked for.
        case extent(Envelope?, count: Int?)
    }

    public var file: String
    /// The rows of the file; nil when reading stopped at the limit.
    public var rows: Int?
    public var answer: Answer
    public var timeExtent: TimeExtent?

    public init(file: String, rows: Int?, answer: Answer, timeExtent: TimeExtent?) {
        self.file = file
        self.rows = rows
        self.answer = answer
        self.timeExtent = timeExtent
    }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("file", file)
        if let rows { members.append("rows", rows) }
        switch answer {
        case .count(let count):
            members.append("count", count)
        case .extent(let extent, let count):
            if let count { members.append("count", count) }
            members.append(key: "extent", value: extent.map { .array([.double($0.xmin), .double($0.ymin), .double($0.xmax), .double($0.ymax)]) } ?? .null)
        }
        members.append(timeExtent: timeExtent)
        return members
    }
}
