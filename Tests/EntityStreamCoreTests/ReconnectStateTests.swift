import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Reconnect policy", .bounded)
struct ReconnectStateTests {
    /// Defaults follow the Maps SDK: 12 attempts, the first two at once, then 10 s apart, then give up.
    @Test func sdkDefaults() {
        var state = ReconnectState(policy: ReconnectPolicy(jitter: 0))
        state.start()
        var decisions: [ReconnectState.Decision] = []
        for _ in 0..<13 { decisions.append(state.next(closeCode: nil)) }
        #expect(decisions[0] == .retry(attempt: 1, delayMilliseconds: 0))
        #expect(decisions[1] == .retry(attempt: 2, delayMilliseconds: 0))
        #expect(decisions[2] == .retry(attempt: 3, delayMilliseconds: 10_000))
        #expect(decisions[11] == .retry(attempt: 12, delayMilliseconds: 10_000))
        #expect(decisions[12] == .giveUp)
    }

    /// Final close codes stop at once; 4401/4403 earn exactly one retry with a fresh token.
    @Test(arguments: [UInt16(4400), 4404])
    func finalCodesGiveUp(code: UInt16) {
        var state = ReconnectState(policy: ReconnectPolicy())
        #expect(state.next(closeCode: code) == .giveUp)
    }

    /// 1001 (going away: a server restarting) is retried like a dropped connection, as ArcGIS clients do.
    @Test func goingAwayIsRetried() {
        var state = ReconnectState(policy: ReconnectPolicy())
        #expect(state.next(closeCode: 1001) == .retry(attempt: 1, delayMilliseconds: 0))
    }

    /// The waits after the immediate attempts are the interval ± 20 %, not all alike (clients dropped
    /// together spread out), reproduced by the seed; a jitter of 0 keeps the interval exact.
    @Test func waitsAreJittered() {
        func waits(seed: UInt64, jitter: Double = 0.2) -> [Int64] {
            var state = ReconnectState(policy: ReconnectPolicy(maximumAttempts: 40, jitter: jitter), seed: seed)
            var delays: [Int64] = []
            while case .retry(_, let delay) = state.next(closeCode: nil) { delays.append(delay) }
            return delays
        }
        let drawn = waits(seed: 7)
        #expect(drawn.count == 40)
        #expect(drawn.prefix(2) == [0, 0])
        let later = drawn.dropFirst(2)
        #expect(later.allSatisfy { $0 >= 8_000 && $0 <= 12_000 }, "\(later)")
        #expect(Set(later).count > 30, "the waits vary")
        #expect(later.contains { $0 < 9_000 } && later.contains { $0 > 11_000 }, "they spread over the whole range")
        #expect(waits(seed: 7) == drawn)
        #expect(waits(seed: 8) != drawn)
        #expect(waits(seed: 7, jitter: 0).dropFirst(2).allSatisfy { $0 == 10_000 })
    }

    /// A short connection is a failed attempt however much it delivered: the count goes on
    /// (it used to reset, so a server that closes after one message was retried at once for ever).
    @Test func shortConnectionsCountAsFailures() {
        var state = ReconnectState(policy: ReconnectPolicy(maximumAttempts: 3, jitter: 0))
        #expect(state.next(closeCode: nil) == .retry(attempt: 1, delayMilliseconds: 0))
        state.connectionEnded(afterBeingUpFor: 3)
        #expect(state.next(closeCode: nil) == .retry(attempt: 2, delayMilliseconds: 0))
        state.connectionEnded(afterBeingUpFor: 9_999)
        #expect(state.next(closeCode: nil) == .retry(attempt: 3, delayMilliseconds: 10_000))
        state.connectionEnded(afterBeingUpFor: 50)
        #expect(state.next(closeCode: nil) == .giveUp)
    }

    /// The stable duration is the interval by default and never below one second, so no
    /// setting makes every connection reset the count (an interval of 0 would have).
    @Test func stableDurationCannotBeZero() {
        #expect(ReconnectPolicy().effectiveStableMilliseconds == 10_000)
        #expect(ReconnectPolicy(intervalMilliseconds: 30_000).effectiveStableMilliseconds == 30_000)
        #expect(ReconnectPolicy(intervalMilliseconds: 0).effectiveStableMilliseconds == 1_000)
        #expect(ReconnectPolicy(stableAfterMilliseconds: 0).effectiveStableMilliseconds == 1_000)
        var state = ReconnectState(policy: ReconnectPolicy(maximumAttempts: 1, intervalMilliseconds: 0))
        _ = state.next(closeCode: nil)
        state.connectionEnded(afterBeingUpFor: 999)
        #expect(state.next(closeCode: nil) == .giveUp)
    }

    @Test(arguments: [UInt16(4401), 4403])
    func authorizationCodesRetryOnceWithNewToken(code: UInt16) {
        var state = ReconnectState(policy: ReconnectPolicy())
        #expect(state.next(closeCode: code) == .retryIfTokenChanged(attempt: 1))
        #expect(state.next(closeCode: code) == .giveUp)
    }

    /// Other codes (e.g. 1006, 1011) are retried.
    @Test func otherCodesRetry() {
        var state = ReconnectState(policy: ReconnectPolicy())
        #expect(state.next(closeCode: 1011) == .retry(attempt: 1, delayMilliseconds: 0))
    }

    /// A connection that stayed up long enough resets the count; a brief one does not.
    @Test func stableConnectionResetsCount() {
        var state = ReconnectState(policy: ReconnectPolicy(jitter: 0))
        _ = state.next(closeCode: nil)
        _ = state.next(closeCode: nil)
        state.connectionEnded(afterBeingUpFor: 500)
        #expect(state.next(closeCode: nil) == .retry(attempt: 3, delayMilliseconds: 10_000))
        state.connectionEnded(afterBeingUpFor: 10_000)
        #expect(state.next(closeCode: nil) == .retry(attempt: 1, delayMilliseconds: 0))
    }

    /// A token that worked (the upgrade succeeded) earns a fresh token retry on the next 4401.
    @Test func establishedConnectionRenewsTokenRetry() {
        var state = ReconnectState(policy: ReconnectPolicy())
        #expect(state.next(closeCode: 4401) == .retryIfTokenChanged(attempt: 1))
        state.connectionEstablished()
        #expect(state.next(closeCode: 4401) == .retryIfTokenChanged(attempt: 2))
        #expect(state.next(closeCode: 4401) == .giveUp)
    }
}
