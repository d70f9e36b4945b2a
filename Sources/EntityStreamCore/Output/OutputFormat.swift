/// How events are written as JSON lines.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// One object per line, `"event"` first; geometry as Esri JSON.
    case esri
    /// One GeoJSON Feature per line (RFC 7946 / GeoJSONSeq): observations as
    /// Point features in WGS84, other events as features with null geometry.
    case geojson
}
