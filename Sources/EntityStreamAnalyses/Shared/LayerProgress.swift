import EntityStreamCore
import EntityStreamModel

/// The pages of a remote layer's answer received so far: `"pages"` (this
/// page's number, from 1) and the features or records in this page.
public struct PagesProgress: AnalysisProgress {
    /// What a page holds.
    public enum Unit: String, Sendable, Hashable {
        case features
        case records
    }

    /// Pages received, this one included.
    public var pages: Int
    /// Features or records in this page.
    public var count: Int
    public var unit: Unit

    public init(pages: Int, count: Int, unit: Unit) {
        self.pages = pages
        self.count = count
        self.unit = unit
    }

    /// `"pages":…,"features":…` (or `"records"`).
    public var members: JSONObject {
        JSONObject([("pages", .int(Int64(pages))), (unit.rawValue, .int(Int64(count)))])
    }
}

/// A note about how the job runs (e.g. a having clause applied here because
/// the layer does not advertise support for it): `"note":"…"`.
public struct NoteProgress: AnalysisProgress {
    public var note: String

    public init(_ note: String) { self.note = note }

    public var members: JSONObject { JSONObject([("note", .string(note))]) }
}
