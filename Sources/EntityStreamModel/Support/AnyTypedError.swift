/// An error enum classified by case that says what is wrong in words: the
/// kind of error a value that must stay `Sendable` and `Hashable` can hold
/// through ``AnyTypedError`` without naming its type.
public protocol TypedError: Error, Sendable, Hashable, CustomStringConvertible {}

/// One ``TypedError`` of any type, for a module that cannot name the type
/// (it is defined above it: an analysis's command errors, the geoprocessing
/// client's errors): equal when the errors are of the same type and equal;
/// ``error`` is the error as thrown, to classify with `as?`.
public struct AnyTypedError: Sendable, Hashable, CustomStringConvertible {
    public let error: any TypedError

    public init(_ error: some TypedError) {
        self.error = error
    }

    public static func == (lhs: AnyTypedError, rhs: AnyTypedError) -> Bool {
        lhs.error.isEqual(to: rhs.error)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type(of: error)))
        error.hash(into: &hasher)
    }

    public var description: String { error.description }
}

extension TypedError {
    /// Whether `other` is this error: the same type and equal.
    fileprivate func isEqual(to other: any TypedError) -> Bool {
        (other as? Self) == self
    }
}
