import EntityStreamModel
/// One `outStatistics` entry: `{"statisticType":"avg","onStatisticField":"F","outStatisticFieldName":"A"}`
/// (with `statisticParameters: {"value": p}` for the percentiles).
///
/// ``init(json:)`` throws ``FeatureQueryError`` for the `outStatistics`
/// parameter naming what is wrong; ``json`` writes the entry back. The output
/// field is ``outputName`` or, without one, ``defaultOutputName``
/// (`AVG_Diabetes_Percent`, as the ArcGIS sample shows). A plain value.
public struct StatisticDefinition: Sendable, Hashable {
    /// REST `statisticType` values.
    public enum StatisticType: String, Sendable, Hashable, CaseIterable {
        case count, sum, min, max, avg, stddev, `var`
        case percentileContinuous = "percentile_cont"
        case percentileDiscrete = "percentile_disc"
    }

    public var type: StatisticType
    /// `onStatisticField` (a field name; ArcGIS also allows an expression for count).
    public var field: String
    /// `outStatisticFieldName`, when given.
    public var outputName: String?
    /// `statisticParameters.value` of the percentiles (0…1).
    public var percentile: Double?

    public init(type: StatisticType, field: String, outputName: String? = nil, percentile: Double? = nil) {
        self.type = type
        self.field = field
        self.outputName = outputName
        self.percentile = percentile
    }

    /// `<TYPE>_<field>`, e.g. `AVG_Diabetes_Percent`.
    public var defaultOutputName: String { "\(type.rawValue.uppercased())_\(field)" }

    /// The name the statistic's output field gets.
    public var resolvedOutputName: String { outputName.flatMap { $0.trimmingSpaces.isEmpty ? nil : $0 } ?? defaultOutputName }

    /// Reads one entry.
    public init(json value: JSONValue) throws(FeatureQueryError) {
        guard let object = value.objectValue else { throw .statisticNotObject(value) }
        guard let typeName = object["statisticType"]?.stringValue else {
            throw .missingStatisticType
        }
        guard let type = StatisticType(rawValue: typeName.lowercased()) else {
            throw .unknownStatisticType(typeName)
        }
        guard let field = object["onStatisticField"]?.stringValue, !field.trimmingSpaces.isEmpty else {
            throw .missingStatisticField(type: typeName)
        }
        var percentile: Double?
        if type == .percentileContinuous || type == .percentileDiscrete {
            guard let value = object["statisticParameters"]?["value"]?.doubleValue, value >= 0, value <= 1 else {
                throw .missingPercentile(type: typeName)
            }
            percentile = value
        }
        let outputName = object["outStatisticFieldName"]?.stringValue
        self.init(type: type, field: field.trimmingSpaces, outputName: outputName, percentile: percentile)
    }

    /// Reads an `outStatistics` value (a JSON array text).
    public static func parseList(_ text: String) throws(FeatureQueryError) -> [StatisticDefinition] {
        let value: JSONValue
        do throws(JSONError) { value = try JSONParser.parse(text) } catch { throw .outStatisticsNotJSON(error) }
        guard let entries = value.arrayValue, !entries.isEmpty else {
            throw .outStatisticsNotList
        }
        var result: [StatisticDefinition] = []
        for entry in entries { result.append(try StatisticDefinition(json: entry)) }
        return result
    }

    /// The entry as REST sends it.
    public var json: JSONValue {
        var object = JSONObject([("statisticType", .string(type.rawValue)), ("onStatisticField", .string(field))])
        if let outputName { object.append(key: "outStatisticFieldName", value: .string(outputName)) }
        if let percentile { object.append(key: "statisticParameters", value: .object(JSONObject([("value", .double(percentile))]))) }
        return .object(object)
    }
}
