/// How a hot-spot input's `x` and `y` are to be read, which decides how
/// distances are measured.
///
/// - ``projected``: planar coordinates in some linear unit (State Plane feet,
///   Web Mercator metres, …). Distances are Euclidean in that unit, and every
///   distance the engine reports (band, cell size) is in that unit.
/// - ``geographic``: WGS84 longitude (`x`) and latitude (`y`) in degrees.
///   Distances are in **metres**: the straight-line (chordal) distance between
///   the two points on the WGS84 ellipsoid, which is how ArcGIS's spatial
///   statistics tools measure geographic data. For points `d` apart the chord
///   is shorter than the geodesic by about d³/(24R²): 1 mm at 10 km, 1 m at
///   100 km, 0.1 % at 1,000 km. Points must lie within 60° of their centre.
public enum HotSpotCoordinates: String, Sendable, Hashable, CaseIterable {
    case projected
    case geographic
}
