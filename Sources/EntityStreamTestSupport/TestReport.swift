import EntityStreamCore
import EntityStreamModel

/// A summary for test jobs and formatter tests: the members it is given, in
/// order, and optionally a table's columns.
public struct TestReport: AnalysisReport {
    public var members: JSONObject
    public var columns: [String]?

    public init(_ members: JSONObject = JSONObject(), columns: [String]? = nil) {
        self.members = members
        self.columns = columns
    }
}
