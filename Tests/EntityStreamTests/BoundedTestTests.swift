@testable import EntityStreamTestSupport
import EntityStreamLocking
import Testing

/// The trait every suite carries: a lane lets at most its width of tests in,
/// a waiter that is cancelled leaves without a slot, and a test that runs past
/// its limit is reported and cancelled.
@Suite("Bounded tests: lanes and time limits", .bounded)
struct BoundedTestTests {
    /// Twelve bodies through a gate of width 3: never more than 3 inside at
    /// once, and every one gets in.
    @Test func widthIsNeverExceeded() async throws {
        let gate = TestGate(width: 3)
        let counts = LockedState((inside: 0, most: 0, entered: 0))
        let (arrivals, arrived) = AsyncStream.makeStream(of: AsyncStream<Void>.Continuation.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await gate.withSlot {
                        counts.withLock { counts in
                            counts.inside += 1
                            counts.entered += 1
                            counts.most = max(counts.most, counts.inside)
                        }
                        // Hold the slot until the test lets this body out.
                        let (door, opener) = AsyncStream.makeStream(of: Void.self)
                        arrived.yield(opener)
                        for await _ in door {}
                        counts.withLock { $0.inside -= 1 }
                    }
                }
            }
            var seen = 0
            for await opener in arrivals {
                seen += 1
                #expect(counts.withLock { $0.inside } <= 3)
                opener.finish()
                if seen == 12 { break }
            }
            try await group.waitForAll()
        }
        let final = counts.withLock { $0 }
        #expect(final.entered == 12)
        #expect(final.most <= 3)
        #expect(final.inside == 0)
    }

    /// A waiter cancelled while the gate is full throws CancellationError and
    /// takes no slot: the next body still gets in when the holder leaves.
    @Test func cancelledWaiterTakesNoSlot() async throws {
        let gate = TestGate(width: 1)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await gate.withSlot {
                holding.yield()
                var iterator = release.makeAsyncIterator()
                _ = await iterator.next()
            }
        }
        var heldIterator = held.makeAsyncIterator()
        _ = await heldIterator.next()
        let waiter = Task { try await gate.withSlot { "entered" } }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        releaser.yield()
        try await holder.value
        #expect(try await gate.withSlot { "next" } == "next")
    }

    /// A body that outlives its limit is cancelled and the test records an
    /// issue saying so; a body within its limit records nothing.
    @Test func overrunIsReportedAndCancelled() async throws {
        let clock = ContinuousClock()
        let cancelled = LockedState(false)
        try await withKnownIssue {
            try await BoundedTest.run({
                let (never, _) = AsyncStream.makeStream(of: Void.self)
                for await _ in never {}
                cancelled.withLock { $0 = Task.isCancelled }
            }, within: .milliseconds(20), clock: clock, waited: .zero)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Time limit exceeded") }
        }
        #expect(cancelled.withLock { $0 })
        try await BoundedTest.run({}, within: .seconds(60), clock: clock, waited: .zero)
    }

    /// A cancelled test that cannot end (it waits on a continuation nothing
    /// resumes) does not hang the run: once the grace has passed, the
    /// watchdog acts (by default it ends the test process with status 1; here
    /// it resumes the test, so the test can see that it acted).
    @Test func aCancelledTestThatCannotEndIsCaught() async throws {
        let waiting = LockedState<(stuck: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))
        try await withKnownIssue {
            try await BoundedTest.run({
                await withCheckedContinuation { continuation in
                    let stuckAlready = waiting.withLock { state -> Bool in
                        state.continuation = continuation
                        return state.stuck
                    }
                    if stuckAlready { continuation.resume() }
                }
            }, within: .milliseconds(20), clock: ContinuousClock(), waited: .zero, grace: .milliseconds(50), whenStuck: {
                let continuation = waiting.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.stuck = true
                    defer { state.continuation = nil }
                    return state.continuation
                }
                continuation?.resume()
            })
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Time limit exceeded") }
        }
        #expect(waiting.withLock { $0.stuck }, "the watchdog acted on the test that did not end")
    }
}
