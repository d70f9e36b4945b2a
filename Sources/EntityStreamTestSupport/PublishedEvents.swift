import EntityStream
import EntityStreamCore
import EntityStreamLocking

/// What an ``AnalysisRuntime`` (or anything else with a publish closure)
/// publishes, kept in order, and awaited by condition instead of sleeping.
///
/// A wait ends when its condition holds, or when the waiting task is
/// cancelled (a test's time limit): it then returns what arrived so far, so
/// that the test's expectations fail and the run goes on instead of hanging.
public final class PublishedEvents: Sendable {
    private let events = LockedState<[StreamEvent]>([])
    private let arrivals = AsyncStreamBox<Int>()

    public init() {}

    /// Appends a published batch (the publish closure).
    public func append(_ batch: [StreamEvent]) {
        let count = events.withLock { $0.append(contentsOf: batch); return $0.count }
        arrivals.yield(count)
    }

    /// Everything published so far.
    public var all: [StreamEvent] { events.withLock { $0 } }

    /// Waits until `done` holds for the events so far (or the task is cancelled); returns them.
    public func wait(until done: ([StreamEvent]) -> Bool) async -> [StreamEvent] {
        while !done(all) {
            // nil: the task was cancelled (an AsyncStream iterator answers nil at once then).
            guard await arrivals.next() != nil else { break }
        }
        return all
    }

    /// Waits until at least `count` events were published (or the task is cancelled); returns them all.
    public func wait(for count: Int) async -> [StreamEvent] {
        await wait { $0.count >= count }
    }
}
