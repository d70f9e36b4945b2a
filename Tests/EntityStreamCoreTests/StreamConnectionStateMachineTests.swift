import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Connection state machine", .bounded)
struct StreamConnectionStateMachineTests {
    private func machine(_ policy: ReconnectPolicy = ReconnectPolicy()) -> StreamConnectionStateMachine {
        StreamConnectionStateMachine(policy: policy)
    }

    /// connect() from rest starts an episode; while it runs, connect() waits for its outcome; once connected, returns it.
    @Test func connectStartsOneEpisode() {
        var state = machine()
        #expect(state.connectRequested() == .startEpisode(1))
        #expect(state.status == .connecting)
        #expect(state.connectRequested() == .awaitOutcome)
        let outcome1 = state.established(episode: 1, now: 0)
        #expect(outcome1)
        #expect(state.status == .connected)
        #expect(state.connectRequested() == .alreadyConnected)
    }

    /// While a disconnect tears down, the status reads disconnected, a connect waits for the teardown,
    /// and reports from the torn-down episode change nothing.
    @Test func disconnectIsNotReenteredByConnect() {
        var state = machine()
        _ = state.connectRequested()
        _ = state.established(episode: 1, now: 0)
        #expect(state.disconnectRequested() == .tearDown(episode: 1))
        #expect(state.status == .disconnected)
        #expect(state.connectRequested() == .awaitTeardown)
        #expect(state.disconnectRequested() == .awaitTeardown)
        #expect(state.attemptEnded(episode: 1, .closed(code: 1000, reason: ""), now: 5) == .stale)
        let outcome2 = state.established(episode: 1, now: 5)
        #expect(!outcome2)
        state.teardownFinished()
        #expect(state.status == .disconnected)
        #expect(state.connectRequested() == .startEpisode(2))
        #expect(!state.isCurrent(1) && state.isCurrent(2))
    }

    /// The SDK policy: two immediate retries, then the interval, then failed after the last attempt.
    @Test func followsThePolicyThenFails() {
        var state = machine(ReconnectPolicy(maximumAttempts: 3, immediateAttempts: 2, intervalMilliseconds: 10_000, jitter: 0))
        _ = state.connectRequested()
        #expect(state.attemptEnded(episode: 1, .failed(message: "refused", retryable: true), now: 0)
                == .retryNow(attempt: 1, requireNewToken: false, error: "refused"))
        #expect(state.attemptEnded(episode: 1, .failed(message: "refused", retryable: true), now: 0)
                == .retryNow(attempt: 2, requireNewToken: false, error: "refused"))
        #expect(state.attemptEnded(episode: 1, .failed(message: "refused", retryable: true), now: 100)
                == .retryAt(deadline: 10_100, attempt: 3, error: "refused"))
        #expect(state.status == .connecting, "waiting between attempts reads connecting")
        #expect(state.attemptStarting(episode: 1) == false)
        #expect(state.attemptEnded(episode: 1, .failed(message: "refused", retryable: true), now: 10_100) == .fail(error: "refused"))
        #expect(state.status == .failed)
        #expect(state.lastError == "refused")
    }

    /// A first attempt that cannot succeed by retrying fails at once; the same failure after the
    /// service has worked is retried. Network trouble on the first attempt follows the policy.
    @Test func firstAttemptFailuresFollowTheirNature() {
        var permanent = machine()
        _ = permanent.connectRequested()
        #expect(permanent.attemptEnded(episode: 1, .failed(message: "404", retryable: false), now: 0) == .fail(error: "404"))

        var transient = machine()
        _ = transient.connectRequested()
        #expect(transient.attemptEnded(episode: 1, .failed(message: "refused", retryable: true), now: 0)
                == .retryNow(attempt: 1, requireNewToken: false, error: "refused"))

        var later = machine()
        _ = later.connectRequested()
        _ = later.established(episode: 1, now: 0)
        #expect(later.attemptEnded(episode: 1, .failed(message: "lost", retryable: true), now: 10) != .fail(error: "lost"))
        #expect(later.attemptEnded(episode: 1, .failed(message: "404", retryable: false), now: 20)
                == .retryNow(attempt: 2, requireNewToken: false, error: "404"))
    }

    /// 1001 is retried; 4400 is final; 4401 asks once for a new token.
    @Test func closeCodes() {
        var goingAway = machine()
        _ = goingAway.connectRequested()
        _ = goingAway.established(episode: 1, now: 0)
        #expect(goingAway.attemptEnded(episode: 1, .closed(code: 1001, reason: "restart"), now: 1)
                == .retryNow(attempt: 1, requireNewToken: false, error: "server closed the connection (1001: restart)"))

        var invalid = machine()
        _ = invalid.connectRequested()
        _ = invalid.established(episode: 1, now: 0)
        #expect(invalid.attemptEnded(episode: 1, .closed(code: 4400, reason: "bad"), now: 1)
                == .fail(error: "server closed the connection (4400: bad)"))

        var unauthorized = machine()
        _ = unauthorized.connectRequested()
        _ = unauthorized.established(episode: 1, now: 0)
        #expect(unauthorized.attemptEnded(episode: 1, .closed(code: 4401, reason: ""), now: 1)
                == .retryNow(attempt: 1, requireNewToken: true, error: "server closed the connection (4401)"))
        #expect(unauthorized.attemptStarting(episode: 1) == true)
        #expect(unauthorized.attemptEnded(episode: 1, .tokenUnchanged(message: "no new token"), now: 2) == .fail(error: "no new token"))
    }

    /// A server that accepts, delivers one message and closes, every time: each short connection
    /// is a failed attempt, so the client retries twice at once, then waits the interval ± 20 %
    /// between attempts, and fails after the policy's attempts (it used to reset the count on the
    /// message and reconnect at once for ever: 3,380 connections in 5 s).
    @Test func serverThatClosesAfterOneMessageIsNotALoop() {
        var state = machine(ReconnectPolicy(maximumAttempts: 5, immediateAttempts: 2, intervalMilliseconds: 10_000))
        _ = state.connectRequested()
        var now: Int64 = 0
        var steps: [StreamConnectionStateMachine.NextStep] = []
        var waits: [Int64] = []
        for _ in 0..<50 {
            _ = state.attemptStarting(episode: 1)
            let established = state.established(episode: 1, now: now)
            #expect(established)
            now += 5   // one message, then the close
            let step = state.attemptEnded(episode: 1, .closed(code: 1000, reason: "bye"), now: now)
            steps.append(step)
            if case .retryAt(let deadline, _, _) = step {
                waits.append(deadline - now)
                now = deadline
            }
            if case .fail = step { break }
        }
        let error = "server closed the connection (1000: bye)"
        #expect(steps == [.retryNow(attempt: 1, requireNewToken: false, error: error),
                          .retryNow(attempt: 2, requireNewToken: false, error: error),
                          .retryAt(deadline: 15 + waits[safe: 0], attempt: 3, error: error),
                          .retryAt(deadline: 20 + waits[safe: 0] + waits[safe: 1], attempt: 4, error: error),
                          .retryAt(deadline: 25 + waits[safe: 0] + waits[safe: 1] + waits[safe: 2], attempt: 5, error: error),
                          .fail(error: error)])
        #expect(waits.count == 3 && waits.allSatisfy { $0 >= 8_000 && $0 <= 12_000 }, "\(waits)")
        #expect(state.status == .failed)
    }

    /// A connection that stayed up for the interval resets the count: the next drop is retried at
    /// once as attempt 1, even after the attempts were nearly used up.
    @Test func stableConnectionResetsTheCount() {
        var state = machine(ReconnectPolicy(maximumAttempts: 2, immediateAttempts: 2, intervalMilliseconds: 10_000))
        _ = state.connectRequested()
        _ = state.established(episode: 1, now: 0)
        #expect(state.attemptEnded(episode: 1, .failed(message: "lost", retryable: true), now: 100)
                == .retryNow(attempt: 1, requireNewToken: false, error: "lost"))
        _ = state.established(episode: 1, now: 100)
        #expect(state.attemptEnded(episode: 1, .failed(message: "lost", retryable: true), now: 10_100)
                == .retryNow(attempt: 1, requireNewToken: false, error: "lost"))
        _ = state.established(episode: 1, now: 10_100)
        #expect(state.attemptEnded(episode: 1, .failed(message: "lost", retryable: true), now: 10_200)
                == .retryNow(attempt: 2, requireNewToken: false, error: "lost"))
        _ = state.established(episode: 1, now: 10_200)
        #expect(state.attemptEnded(episode: 1, .failed(message: "lost", retryable: true), now: 10_300) == .fail(error: "lost"))
    }

    /// After failed, disconnect() just reports disconnected; a new connect() starts afresh at attempt 0.
    @Test func failedThenDisconnectThenConnect() {
        var state = machine(ReconnectPolicy(maximumAttempts: 0))
        _ = state.connectRequested()
        #expect(state.attemptEnded(episode: 1, .failed(message: "x", retryable: true), now: 0) == .fail(error: "x"))
        #expect(state.disconnectRequested() == .reportDisconnected)
        #expect(state.disconnectRequested() == .nothing)
        #expect(state.connectRequested() == .startEpisode(2))
        #expect(state.attempt == 0 && state.lastError == nil)
    }
}

private extension Array where Element == Int64 {
    /// The element at `index`, or 0 past the end (so a short array fails an expectation, not the run).
    subscript(safe index: Int) -> Int64 { index < count ? self[index] : 0 }
}
