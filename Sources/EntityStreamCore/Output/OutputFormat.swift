/// How events are written as JSON lines.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// One object per line, `"event"` first; geometry as Esri JSON.
    case esri
    /// Features for a GIS: one GeoJSON Feature per line (RFC 7946 /
    /// GeoJSONSeq, WGS84) for each observation or analysis result; other
    /// events as Esri JSON lines on a side output (stderr).
    case geojson
    /// Features for a GIS: an RFC 4180 table with x/y columns, one row per
    /// observation, analysis result or statistics record; other events as
    /// Esri JSON lines on a side output (stderr).
    case csv

    /// True for the formats that print only features (GeoJSON, CSV).
    public var printsFeatures: Bool { self != .esri }
}
