
/// One group's result: its group-by values (in group-by order, named as the
/// schema spells the fields) and its statistics (in request order, named by
/// alias or ArcGIS's default name).
///
/// Value types: `count` is `.int`; `sum`, `avg`, `stddev`, `var` are
/// `.double`; `min`/`max` have the field's own kind (`.int`, `.double`,
/// `.date`, `.string`); any statistic without a value is `.null`. Without
/// group-by, ``group`` is empty. A plain value type.
public struct StatisticsRecord: Sendable, Hashable {
    public var group: [NamedValue]
    public var statistics: [NamedValue]

    public init(group: [NamedValue], statistics: [NamedValue]) {
        self.group = group
        self.statistics = statistics
    }

    /// The group value of field `name` (ASCII case-insensitive), nil when not a group field.
    public func groupValue(_ name: String) -> AttributeValue? {
        let folded = Schema.fold(name)
        return group.first { Schema.fold($0.name) == folded }?.value
    }

    /// The statistic named `name` (ASCII case-insensitive), nil when not requested.
    public func statistic(_ name: String) -> AttributeValue? {
        let folded = Schema.fold(name)
        return statistics.first { Schema.fold($0.name) == folded }?.value
    }
}
