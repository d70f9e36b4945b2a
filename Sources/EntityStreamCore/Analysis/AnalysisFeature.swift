import EntityStreamModel
/// One result of an analysis that is a feature: optional geometry and its
/// attributes in order. Written as one `result` line, Esri JSON
/// (`"geometry"`, `"attributes"`) or a GeoJSON Feature as `--format` says.
public struct AnalysisFeature: Sendable, Hashable {
    public var geometry: AnalysisGeometry?
    public var attributes: JSONObject
    /// The attributes whose integer values are dates (epoch ms): written as
    /// numbers in Esri JSON, as ISO-8601 text in GeoJSON and CSV.
    public var dateAttributes: [String]

    public init(geometry: AnalysisGeometry?, attributes: JSONObject, dateAttributes: [String] = []) {
        self.geometry = geometry
        self.attributes = attributes
        self.dateAttributes = dateAttributes
    }
}
