import EntityStreamCore
import EntityStreamTestSupport
import Testing

@Suite("Reconnect policy", .bounded(.io))
struct ReconnectStateTests {
    /// Defaults follow the Maps SDK: 12 attempts, the first two at once, then 10 s apart, then give up.
    @Test func sdkDefaults() {
        var state = ReconnectState(policy: ReconnectPolicy())
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

    /// A connection that delivered data resets the count however briefly it lasted.
    @Test func productiveConnectionResetsCount() {
        var state = ReconnectState(policy: ReconnectPolicy())
        for _ in 0..<5 { _ = state.next(closeCode: nil) }
        state.connectionEnded(afterBeingUpFor: 3, deliveredData: true)
        #expect(state.next(closeCode: nil) == .retry(attempt: 1, delayMilliseconds: 0))
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
        var state = ReconnectState(policy: ReconnectPolicy())
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
