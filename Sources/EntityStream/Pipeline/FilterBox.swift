import EntityStreamCore
import Foundation
import EntityStreamLocking

/// A filter handed from a control command to a running replay. Thread-safe.
public final class FilterBox: Sendable {
    private let pending = LockedState<StreamFilter?>(nil)
    public init() {}
    public func set(_ filter: StreamFilter) { pending.withLock { $0 = filter } }
    func take() -> StreamFilter? { pending.withLock { state in defer { state = nil }; return state } }
}
