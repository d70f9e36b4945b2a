import EntityStreamCore
import EntityStreamStatistics
import EntityStreamModel

/// The names of a statistics table, as every statistics summary writes
/// them (`"groupFields":[…]`, `"statisticNames":[…]`) and a CSV table's
/// header needs them (``columns``: the group-by fields, then the statistic
/// names). A value type.
public struct StatisticsNames: Sendable, Hashable {
    public var groupFields: [String]
    public var statisticNames: [String]

    public init(groupFields: [String], statisticNames: [String]) {
        self.groupFields = groupFields
        self.statisticNames = statisticNames
    }

    /// The names of `plan`'s table.
    public init(_ plan: StatisticsPlan) {
        self.init(groupFields: plan.groupFieldNames, statisticNames: plan.statisticNames)
    }

    /// The table's columns: the group-by fields, then the statistic names.
    public var columns: [String] { groupFields + statisticNames }

    /// Appends `"groupFields"` and `"statisticNames"`.
    public func append(to members: inout JSONObject) {
        members.append(key: "groupFields", value: .array(groupFields.map(JSONValue.string)))
        members.append(key: "statisticNames", value: .array(statisticNames.map(JSONValue.string)))
    }
}

/// What grouped statistics over a file report (``FileStatisticsJob``):
/// `"file"`, its rows (`"fileRows"`), the rows selected and aggregated
/// (`"rows"`), the `"records"` written, the names, the `"timeExtent"` asked
/// for. A value type.
public struct FileStatisticsReport: AnalysisReport {
    public var file: String
    public var fileRows: Int
    /// Rows selected (where, time, geometry) and aggregated.
    public var rows: Int
    public var records: Int
    public var names: StatisticsNames
    public var timeExtent: TimeExtent?

    public init(file: String, fileRows: Int, rows: Int, records: Int, names: StatisticsNames, timeExtent: TimeExtent?) {
        self.file = file
        self.fileRows = fileRows
        self.rows = rows
        self.records = records
        self.names = names
        self.timeExtent = timeExtent
    }

    public var columns: [String]? { names.columns }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("file", file)
        members.append("fileRows", fileRows)
        members.append("rows", rows)
        members.append("records", records)
        names.append(to: &members)
        members.append(timeExtent: timeExtent)
        return members
    }
}

/// What grouped statistics from a remote layer report
/// (``LayerStatisticsJob``): `"layer"`, the `"records"` written, when the
/// having clause was applied here `"havingAppliedLocally":true` and
/// `"groupsDroppedByHaving"`, how the answer was fetched (``LayerPaging``),
/// the names, the `"timeExtent"` asked for. A value type.
public struct LayerStatisticsReport: AnalysisReport {
    public var layer: String
    /// Records written (the layer's groups less those the having clause dropped here).
    public var records: Int
    /// Groups the having clause dropped here; nil when the layer applied it (or there was none).
    public var groupsDroppedByHaving: Int?
    public var paging: LayerPaging
    public var names: StatisticsNames
    public var timeExtent: TimeExtent?

    public init(layer: String, records: Int, groupsDroppedByHaving: Int?, paging: LayerPaging, names: StatisticsNames, timeExtent: TimeExtent?) {
        self.layer = layer
        self.records = records
        self.groupsDroppedByHaving = groupsDroppedByHaving
        self.paging = paging
        self.names = names
        self.timeExtent = timeExtent
    }

    public var columns: [String]? { names.columns }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("layer", layer)
        members.append("records", records)
        if let groupsDroppedByHaving {
            members.append(key: "havingAppliedLocally", value: .bool(true))
            members.append("groupsDroppedByHaving", groupsDroppedByHaving)
        }
        paging.append(to: &members)
        names.append(to: &members)
        members.append(timeExtent: timeExtent)
        return members
    }
}

/// What grouped statistics over the entity store report
/// (``StoreStatisticsJob``): `"of"` (entities or observations), the
/// engine's figures (`"rows"` read, `"groups"` formed, `"records"` kept by
/// the having clause, `"ignoredValues"` numeric statistics skipped,
/// `"rowsOverGroupLimit"`, and `"groupLimit"` when rows went over it), the
/// names, the `"timeField"` and the `"timeExtent"` (when bounded). A value type.
public struct StoreStatisticsReport: AnalysisReport {
    public var of: StoreStatisticsJob.Rows
    public var rows: Int
    public var groups: Int
    public var records: Int
    public var ignoredValues: Int
    public var rowsOverGroupLimit: Int
    /// The most groups formed (written when rows went over it).
    public var groupLimit: Int
    public var names: StatisticsNames
    public var timeField: ReportedTimeField
    /// The time extent selected on (written when bounded).
    public var timeExtent: TimeExtent

    public init(of: StoreStatisticsJob.Rows, rows: Int, groups: Int, records: Int, ignoredValues: Int, rowsOverGroupLimit: Int,
                groupLimit: Int, names: StatisticsNames, timeField: ReportedTimeField, timeExtent: TimeExtent) {
        self.of = of
        self.rows = rows
        self.groups = groups
        self.records = records
        self.ignoredValues = ignoredValues
        self.rowsOverGroupLimit = rowsOverGroupLimit
        self.groupLimit = groupLimit
        self.names = names
        self.timeField = timeField
        self.timeExtent = timeExtent
    }

    public var columns: [String]? { names.columns }

    public var members: JSONObject {
        var members = JSONObject()
        members.append("of", of.rawValue)
        members.append("rows", rows)
        members.append("groups", groups)
        members.append("records", records)
        members.append("ignoredValues", ignoredValues)
        members.append("rowsOverGroupLimit", rowsOverGroupLimit)
        if rowsOverGroupLimit > 0 { members.append("groupLimit", groupLimit) }
        names.append(to: &members)
        members.append("timeField", timeField.text)
        if !timeExtent.isUnbounded { members.append(timeExtent: timeExtent) }
        return members
    }
}
