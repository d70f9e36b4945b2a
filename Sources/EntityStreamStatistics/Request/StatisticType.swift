import EntityStreamModel
import EntityStreamFeatures

/// The seven statistic types of ArcGIS (`StatisticType` in the Maps SDKs,
/// `statisticType` in the REST `outStatistics` parameter).
///
/// Semantics (ArcGIS / SQL): ``count`` counts non-null values (of `*`: rows);
/// ``sum``, ``avg``, ``min`` and ``max`` ignore nulls and are null for a group
/// without a non-null value; ``stddev`` and ``var`` are the sample forms
/// (divisor n − 1), null for fewer than two values. ``count`` yields an
/// integer, ``min``/``max`` a value of the field's own type, the others
/// doubles. A plain value type.
public enum StatisticType: String, Sendable, Hashable, CaseIterable {
    case count, sum, min, max, avg, stddev, `var`

    /// Parses a REST / command-line name (`count|sum|min|max|avg|stddev|var`),
    /// ASCII case-insensitively; nil for anything else.
    public init?(restName: some StringProtocol) {
        self.init(rawValue: Schema.fold(String(restName)))
    }

    /// The REST name (`avg`).
    public var restName: String { rawValue }

    /// The upper-case name, which is also the prefix of ArcGIS's default
    /// output names and the having-clause aggregate name (`AVG`).
    public var sqlName: String { rawValue.uppercased() }

    /// ArcGIS's default output name: `AVG_Diabetes_Percent`, `COUNT_…`,
    /// `SUM_…`, `MIN_…`, `MAX_…`, `STDDEV_…`, `VAR_…`. The count of all rows
    /// (field `*`) is named `COUNT_ALL`: `COUNT_*` would not be a valid field
    /// name, and ArcGIS documents no name for it.
    public func defaultOutputName(field: String) -> String {
        if field == StatisticDefinition.allRows { return "\(sqlName)_ALL" }
        return "\(sqlName)_\(field)"
    }

    /// True for the types that need a numeric field (`sum`, `avg`, `stddev`,
    /// `var`); `count`, `min` and `max` accept any field.
    public var needsNumericField: Bool {
        switch self {
        case .sum, .avg, .stddev, .var: return true
        case .count, .min, .max: return false
        }
    }

    /// The names a having clause accepts as aggregate functions, in the order
    /// error messages list them.
    static let havingFunctionNames = ["AVG", "COUNT", "SUM", "STDDEV", "MIN", "MAX", "VAR"]
}
