/// Why related features cannot be joined (a missing join field, …), in words
/// a user can act on. A plain value.
public struct RelatedFeaturesError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
