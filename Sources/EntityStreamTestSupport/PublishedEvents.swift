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
    private struct State {
        var events: [StreamEvent] = []
        var waiters: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// The events, and one stream per wait in progress: a waiter cancelled
    /// ends only its own stream (one stream shared by every wait was ended
    /// for all of them by the first cancelled one, and every later wait
    /// returned at once).
    private let state = LockedState(State())

    public init() {}

    /// Appends a published batch (the publish closure).
    public func append(_ batch: [StreamEvent]) {
        let waiters = state.withLock { state in
            state.events.append(contentsOf: batch)
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.yield() }
    }

    /// Everything published so far.
    public var all: [StreamEvent] { state.withLock { $0.events } }

    /// Waits until `done` holds for the events so far (or the task is cancelled); returns them.
    public func wait(until done: ([StreamEvent]) -> Bool) async -> [StreamEvent] {
        let (arrivals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Registered before the first look: an arrival after it wakes this wait.
        let id = state.withLock { state in
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = continuation
            return state.nextWaiter
        }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        var iterator = arrivals.makeAsyncIterator()
        while !done(all) {
            // nil: the task was cancelled (the iterator answers nil at once then).
            guard await iterator.next() != nil else { break }
        }
        return all
    }

    /// Waits until at least `count` events were published (or the task is cancelled); returns them all.
    public func wait(for count: Int) async -> [StreamEvent] {
        await wait { $0.count >= count }
    }
}
