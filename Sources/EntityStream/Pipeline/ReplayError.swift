import EntityStreamCore
import Foundation

/// A replay that cannot start, with the reason.
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
