import EntityStreamCore
import EntityStreamFeatures
import EntityStreamModel
import EntityStream

/// The time an analysis of the store selected on, as its summary names it
/// (`"timeField"`): the receive time, or the service's time field(s). A value type.
public enum ReportedTimeField: Sendable, Hashable {
    /// The receive time (`received`).
    case received
    /// The service's time field, or its start and end fields.
    case fields(start: String, end: String?)

    /// The time key `key` of a scan over `schema`.
    public init(_ key: ObservationTimeKey, schema: Schema) {
        switch key {
        case .received: self = .received
        case .field(let start, let end): self = .fields(start: schema.fields[start].name, end: end.map { schema.fields[$0].name })
        }
    }

    /// `received`, `start` or `start,end`.
    public var text: String {
        switch self {
        case .received: return "received"
        case .fields(let start, let end): return start + (end.map { "," + $0 } ?? "")
        }
    }
}

/// How a remote layer's answer was fetched: pages, requests and the paging
/// used (`"pages"`, `"requests"`, `"paging"`: `none`, `resultOffset` or
/// `objectIds`, and `"pageSize"` when paged). A value type.
public struct LayerPaging: Sendable, Hashable {
    public var pages: Int
    public var requests: Int
    public var strategy: FeatureQueryPager.Strategy

    public init(_ summary: FeatureQuerySummary) {
        pages = summary.pageCount
        requests = summary.requestCount
        strategy = summary.strategy
    }

    /// Appends the members, in order.
    public func append(to members: inout JSONObject) {
        members.append(key: "pages", value: .int(Int64(pages)))
        members.append(key: "requests", value: .int(Int64(requests)))
        switch strategy {
        case .single: members.append(key: "paging", value: .string("none"))
        case .pages(let size):
            members.append(key: "paging", value: .string("resultOffset"))
            members.append(key: "pageSize", value: .int(Int64(size)))
        case .objectIDBatches(let size):
            members.append(key: "paging", value: .string("objectIds"))
            members.append(key: "pageSize", value: .int(Int64(size)))
        }
    }
}

extension JSONObject {
    /// Appends `"key":n`.
    mutating func append(_ key: String, _ count: Int) {
        append(key: key, value: .int(Int64(count)))
    }

    /// Appends `"key":"text"`.
    mutating func append(_ key: String, _ text: String) {
        append(key: key, value: .string(text))
    }

    /// Appends `"timeExtent":{"start":…,"end":…}` when `extent` is given.
    mutating func append(timeExtent extent: TimeExtent?) {
        if let extent { append(key: "timeExtent", value: extent.summaryJSON) }
    }
}
