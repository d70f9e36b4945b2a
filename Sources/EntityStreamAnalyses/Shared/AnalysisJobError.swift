import EntityStreamModel

/// Why an analysis job failed, where the job adds what an engine's own
/// error cannot say (the file, the parameter) or finds the fault itself.
///
/// A job throws an engine's typed error as it is (`FeatureLoadError`,
/// `FeatureQueryError`, `StatisticsError`, `HotSpotSelectionError`, …) and
/// one of these only to add context or for a fault of its own, so a
/// `failed` line's ``AnalysisJobFailure/error`` is classified by type and
/// case; ``description`` is the line's `error` text.
public enum AnalysisJobError: Error, CustomStringConvertible {
    /// Working with the file at `path` failed (a query's temporary sort files); `underlying` says how.
    case file(String, underlying: any Error)
    /// The file at `path` changed while it was read (its layout, twice).
    case fileChanged(String)
    /// The request's parameter `name` (`where`, `outSR`) cannot be used; `underlying` says why.
    case parameter(String, underlying: any Error)
    /// A field list (`parameter`: `outFields`) names a field the schema lacks; `known`: the schema's fields.
    case unknownField(parameter: String, name: String, known: [String])
    /// A `timeField` that is neither `received` nor a field of the schema (`known`).
    case unknownTimeField(String, known: [String])
    /// A `timeField` (as the schema spells it) whose type holds no times.
    case notTimeField(String, type: FieldType)
    /// A statistics query asked of a query command.
    case statisticsNeedStatisticsCommand
    /// The file's query engine answered a statistics query with something else.
    case noStatisticsAnswer
    /// The layer (its display URL) does not support statistics queries.
    case statisticsUnsupported(layer: String)
    /// The layer (its display URL) answered a statistics query with a page that cannot be read.
    case unexpectedStatisticsAnswer(layer: String, underlying: any Error)

    public var description: String {
        switch self {
        case .file(let path, let underlying):
            return "\(path): \(underlying)"
        case .fileChanged(let path):
            return "\(path): the file changed while it was read"
        case .parameter(let name, let underlying):
            return "\(name): \(underlying)"
        case .unknownField(let parameter, let name, let known):
            return "\(parameter): unknown field '\(name)' (fields: \(known.joined(separator: ", ")))"
        case .unknownTimeField(let name, let known):
            return "timeField: unknown field '\(name)' (received, or one of \(known.joined(separator: ", ")))"
        case .notTimeField(let name, let type):
            return "timeField: '\(name)' is \(type.esriName), not a date or a number of epoch milliseconds"
        case .statisticsNeedStatisticsCommand:
            return "statistics queries run with the statistics command"
        case .noStatisticsAnswer:
            return "the file's query engine answered no statistics"
        case .statisticsUnsupported(let layer):
            return "the layer \(layer) does not support statistics queries (supportsStatistics is false)"
        case .unexpectedStatisticsAnswer(let layer, let underlying):
            return "the layer \(layer) answered the statistics query unexpectedly: \(underlying)"
        }
    }
}
