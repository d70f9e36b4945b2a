/// What geometry the features of a layer have: points, or none at all (a
/// table, ArcGIS's "Table" layer type). The only geometry types the feature
/// layer model carries; parsing any other Esri name yields nil.
public enum FeatureGeometryType: Sendable, Hashable {
    /// `esriGeometryPoint`: every feature has a point or a null geometry.
    case point
    /// No geometry: the layer is a table.
    case none

    /// `esriGeometryPoint`, or nil for a table (which has no `geometryType`).
    public var esriName: String? {
        switch self {
        case .point: return "esriGeometryPoint"
        case .none: return nil
        }
    }

    /// The layer `type` ArcGIS gives: "Feature Layer" or "Table".
    public var layerType: String {
        switch self {
        case .point: return "Feature Layer"
        case .none: return "Table"
        }
    }
}
