/// What one WebSocket text message from an ArcGIS stream service decodes to
/// (one message may yield several, see ``EsriFeatureDecoder``).
///
/// A value type; `Sendable`.
public enum StreamMessage: Sendable, Hashable {
    /// A point feature: a bare `{geometry, attributes}` feature, or a
    /// `{"type":"create"|"update","feature":{…}}` message. Geometry is nil
    /// when the feature had none, `null`, or an empty point.
    case observation(Observation)
    /// `{"type":"delete","feature":{…}}`: the feature (its track id) to remove.
    /// Geometry is the point when the feature carried one, else nil.
    case delete(Observation)
    /// Any message object having a `"filter"` key: the server's reply to a
    /// filter change (it may also carry `"error"`), parsed in full.
    case filterReply(JSONObject)
    /// A feature whose geometry is not a point; reported rather than dropped.
    /// `kind` is "polyline" (`paths`/`curvePaths`), "polygon" (`rings`/
    /// `curveRings`), "multipoint" (`points`) or "envelope" (`xmin`); the
    /// observation carries the attributes with geometry nil.
    case nonPointGeometry(kind: String, Observation)

    /// The observation carried by every case except ``filterReply(_:)``.
    public var carriedObservation: Observation? {
        switch self {
        case .observation(let o), .delete(let o), .nonPointGeometry(_, let o): return o
        case .filterReply: return nil
        }
    }
}
