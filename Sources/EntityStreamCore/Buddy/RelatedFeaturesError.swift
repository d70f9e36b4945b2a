import EntityStreamModel

/// Why related features cannot be joined, by what was wrong; its
/// description is in words a user can act on. A plain value.
public enum RelatedFeaturesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The related features have no join field of that name (`fields`: theirs).
    case noJoinFieldInRelated(String, fields: [String])
    /// The stream has no join field of that name (`fields`: the stream's).
    case noJoinFieldInStream(String, fields: [String])
    /// The related layer could not be read: the layer client's error
    /// (a `FeatureLayerError`, defined above this module).
    case unreadable(AnyTypedError)

    public var description: String {
        switch self {
        case .noJoinFieldInRelated(let name, let fields):
            return "the related features have no join field '\(name)' (fields: \(fields.joined(separator: ", ")))"
        case .noJoinFieldInStream(let name, let fields):
            return "the stream has no join field '\(name)' (fields: \(fields.joined(separator: ", ")))"
        case .unreadable(let error): return error.description
        }
    }
}
