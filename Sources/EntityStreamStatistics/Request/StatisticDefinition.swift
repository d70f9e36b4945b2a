import EntityStreamFeatures
import EntityStreamModel

/// One requested statistic: a field (or `*`, all rows, for `count`), a type
/// and an optional alias (the output name; REST `outStatisticFieldName`).
///
/// A definition is only text until a ``StatisticsPlan`` checks it against a
/// schema. ``init(parsing:)`` reads the command line's `TYPE:FIELD[:ALIAS]`
/// (`avg:Diabetes_Percent`, `count:Diabetes_Percent:counties`, `count:*`) and
/// throws ``StatisticsError`` for anything else. A plain value type.
public struct StatisticDefinition: Sendable, Hashable {
    /// The field name that stands for all rows (only with ``StatisticType/count``).
    public static let allRows = "*"

    /// The field name as given (matched case-insensitively), or ``allRows``.
    public var field: String
    public var type: StatisticType
    /// The output name; nil for ArcGIS's default (``StatisticType/defaultOutputName(field:)``).
    public var alias: String?

    public init(field: String, type: StatisticType, alias: String? = nil) {
        self.field = field
        self.type = type
        self.alias = alias
    }

    /// Reads `TYPE:FIELD` or `TYPE:FIELD:ALIAS` (spaces around parts are
    /// ignored; the type is case-insensitive).
    /// - Throws: ``StatisticsError/unknownStatisticType(_:)`` for a type other
    ///   than the seven, ``StatisticsError/malformedStatistic(text:reason:)``
    ///   for a missing or empty part or a name that is too long or holds
    ///   control characters (an alias also no comma).
    public init(parsing spec: String) throws(StatisticsError) {
        let parts = spec.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces }
        guard parts.count >= 2 else {
            throw .malformedStatistic(text: spec, reason: "expected TYPE:FIELD or TYPE:FIELD:ALIAS (for example avg:Diabetes_Percent)")
        }
        guard let type = StatisticType(restName: parts[0]) else {
            if parts[0].isEmpty { throw .malformedStatistic(text: spec, reason: "the statistic type is empty") }
            throw .unknownStatisticType(parts[0])
        }
        let field = try Self.checkedName(parts[1], role: "field", in: spec)
        var alias: String?
        if parts.count == 3 {
            alias = try Self.checkedName(parts[2], role: "alias", in: spec)
        }
        self.init(field: field, type: type, alias: alias)
    }

    /// The name this statistic's value carries in records: the alias, or
    /// ArcGIS's default for the given field spelling.
    func outputName(fieldSpelling: String) -> String {
        alias ?? type.defaultOutputName(field: fieldSpelling)
    }

    /// `name` if it is usable as a field name or alias, else the reason why not.
    static func checkedName(_ name: String, role: String, in text: String) throws(StatisticsError) -> String {
        if let reason = nameProblem(name, role: role) { throw .malformedStatistic(text: text, reason: reason) }
        return name
    }

    /// Why `name` cannot be a field name or alias, or nil when it can.
    static func nameProblem(_ name: String, role: String) -> String? {
        if name.isEmpty { return "the \(role) is empty" }
        if name.unicodeScalars.count > StatisticsLimits.maximumNameLength {
            return "the \(role) is longer than \(StatisticsLimits.maximumNameLength) characters"
        }
        for scalar in name.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { return "the \(role) holds a control character" }
            if role == "alias" && scalar == "," { return "the alias holds a comma" }
        }
        return nil
    }
}
