/// Why the records for a hot-spot analysis could not be selected: a where
/// clause that does not compile against the data, an unknown or non-numeric
/// value field, a time extent on data without times, points in several
/// spatial references. ``description`` is a sentence fit for a user.
public struct HotSpotSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
