/// What can go wrong naming a spatial reference or transforming between two;
/// each case names the spatial reference or point at fault and
/// ``description`` says it in one sentence. Classify on the cases, never on
/// the text. `Sendable`.
public enum ProjectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// PROJ knows no coordinate reference system by this WKID (neither as
    /// `EPSG:n` nor as `ESRI:n`), or the WKT does not define one.
    case unknownSpatialReference(String, detail: String)
    /// Text that is not a spatial reference at all (`--out-sr abc`).
    case malformed(String, reason: String)
    /// PROJ found no transformation between the two.
    case noTransformation(from: String, to: String, detail: String)
    /// This point cannot be transformed (outside the projection's domain, latitude beyond ±90°).
    case cannotTransform(x: Double, y: Double, from: String, to: String, detail: String)
    /// PROJ cannot find its database (`proj.db`, Debian package `proj-data`).
    case databaseMissing(detail: String)
    /// More distinct WKT spatial references than one process keeps.
    case tooManyWKT(limit: Int)

    public var description: String {
        switch self {
        case .unknownSpatialReference(let name, let detail): "unknown spatial reference \(name): \(detail)"
        case .malformed(let text, let reason): "'\(text.count > 80 ? String(text.prefix(77)) + "…" : text)' is not a spatial reference: \(reason)"
        case .noTransformation(let from, let to, let detail): "no transformation from \(from) to \(to): \(detail)"
        case .cannotTransform(let x, let y, let from, let to, let detail):
            "the point (\(x), \(y)) cannot be transformed from \(from) to \(to): \(detail)"
        case .databaseMissing(let detail): "PROJ cannot find its database proj.db (install proj-data): \(detail)"
        case .tooManyWKT(let limit): "more than \(limit) different WKT spatial references in one process"
        }
    }
}
