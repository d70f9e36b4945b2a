import EntityStreamModel

/// A query that cannot be run as given: the REST parameter at fault and why.
///
/// ``arcGISError`` is what a server answers (code 400, the parameter named
/// in `details`); ``description`` reads `'time' parameter is invalid: the end … is before the start …`.
/// A plain value.
public struct FeatureQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parameter's REST name (`where`, `time`, `outFields`, …).
    public var parameter: String
    public var reason: String

    public init(_ parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }

    /// The ArcGIS error JSON a server answers with.
    public var arcGISError: ArcGISError { .invalidParameter(parameter, reason) }

    public var description: String { "'\(parameter)' parameter is invalid: \(reason)" }
}
