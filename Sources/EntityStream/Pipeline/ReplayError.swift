import EntityStreamCore
import Foundation

/// A replay that cannot start, with the reason. ``isUsageError`` marks the
/// options asking for something the file cannot give (`--speed` on a file
/// without times): a mistake in the command, not a problem with the file.
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public var isUsageError: Bool

    public init(_ description: String, isUsageError: Bool = false) {
        self.description = description
        self.isUsageError = isUsageError
    }
}
