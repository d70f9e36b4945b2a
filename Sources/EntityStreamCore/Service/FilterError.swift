/// A filter that cannot be understood, with the reason.
public struct FilterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
