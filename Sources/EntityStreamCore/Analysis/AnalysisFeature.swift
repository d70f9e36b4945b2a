/// One result of an analysis that is a feature: optional geometry and its
/// attributes in order. Written as one `result` line, Esri JSON
/// (`"geometry"`, `"attributes"`) or a GeoJSON Feature as `--format` says.
public struct AnalysisFeature: Sendable, Hashable {
    public var geometry: AnalysisGeometry?
    public var attributes: JSONObject

    public init(geometry: AnalysisGeometry?, attributes: JSONObject) {
        self.geometry = geometry
        self.attributes = attributes
    }
}
