import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

/// Instants for the timer: a fixed origin plus milliseconds.
private let origin = ContinuousClock.now
private func at(milliseconds: Int64) -> ContinuousClock.Instant { origin + .milliseconds(milliseconds) }

@Suite("Service loop timer", .bounded)
struct ServiceLoopTimerTests {
    /// libwebsockets can run the timer (or return from its millisecond poll)
    /// a little before our clock reaches the tick: the timer is armed again
    /// for the tick instead of the loop sleeping without one (it slept until
    /// libwebsockets' 30 s housekeeping timer, so a dead peer set to be
    /// dropped after 2 s was dropped after 30 or 60 s).
    @Test func timerSpentBeforeTheTickIsArmedAgain() {
        var timer = ServiceLoopTimer<ContinuousClock.Instant>(tickInterval: .seconds(1))
        #expect(timer.started(now: at(milliseconds: 0)) == at(milliseconds: 1000))
        timer.fired()
        let early = timer.turnEnded(now: at(milliseconds: 1000) - .microseconds(3))
        #expect(early == .init(tick: false, arm: at(milliseconds: 1000)))
        timer.fired()
        #expect(timer.turnEnded(now: at(milliseconds: 1000)) == .init(tick: true, arm: at(milliseconds: 2000)))
    }

    /// Turns between ticks (messages, commands) leave an armed timer alone;
    /// a tick arms it for the next one, or a whole interval on when the loop was late.
    @Test func ticksFollowTheIntervalAndCatchUpWhenLate() {
        var timer = ServiceLoopTimer<ContinuousClock.Instant>(tickInterval: .seconds(1))
        _ = timer.started(now: at(milliseconds: 0))
        #expect(timer.turnEnded(now: at(milliseconds: 400)) == .init(tick: false, arm: nil))
        #expect(timer.isArmed)
        timer.fired()
        #expect(timer.turnEnded(now: at(milliseconds: 3500)) == .init(tick: true, arm: at(milliseconds: 4500)))
        #expect(timer.nextTick == at(milliseconds: 4500))
    }

    /// A loop without ticks (a server's) arms the timer for its shutdown
    /// deadline only, and again when the timer is spent before the deadline;
    /// with ticks the earlier of the two wins.
    @Test func shutdownDeadlineSharesTheTimer() {
        var server = ServiceLoopTimer<ContinuousClock.Instant>(tickInterval: nil)
        #expect(server.started(now: at(milliseconds: 0)) == nil)
        #expect(server.turnEnded(now: at(milliseconds: 100)) == .init(tick: false, arm: nil))
        #expect(server.shutdownBegan(deadline: at(milliseconds: 2000)) == at(milliseconds: 2000))
        server.fired()
        #expect(server.turnEnded(now: at(milliseconds: 1999)) == .init(tick: false, arm: at(milliseconds: 2000)))

        var client = ServiceLoopTimer<ContinuousClock.Instant>(tickInterval: .seconds(1))
        _ = client.started(now: at(milliseconds: 0))
        #expect(client.shutdownBegan(deadline: at(milliseconds: 600)) == at(milliseconds: 600))
        #expect(client.shutdownBegan(deadline: at(milliseconds: 2500)) == at(milliseconds: 1000))
    }
}

/// Counts its loop's ticks; owns no connection.
private final class TickCounter: ServiceLoopDelegate, @unchecked Sendable {
    let ticks: AsyncStream<Void>.Continuation

    init(_ ticks: AsyncStream<Void>.Continuation) { self.ticks = ticks }

    func callback(wsi: OpaquePointer, reason: CallbackReason, user: UnsafeMutableRawPointer?,
                  input: UnsafeMutableRawPointer?, length: Int) -> Int32 { 0 }
    func serviceTurnEnded() {}
    func beginShutdown() {}
    var hasLiveConnections: Bool { false }
    func contextWillBeDestroyed() {}
    func tick(now: ContinuousClock.Instant) { ticks.yield() }
}

@Suite("Service loop ticks", .bounded(.io))
struct ServiceLoopTickTests {
    /// A loop whose libwebsockets timer fires before its own clock reaches
    /// each tick (5 ms early every time; millisecond polls do it now and
    /// then) still ticks every 10 ms. Before the timer woke the loop and was
    /// armed again, each tick waited for libwebsockets' 30 s housekeeping
    /// timer, and these 5 ticks did not come within the test's limit.
    @Test func ticksComeWhenTheTimerFiresEarly() async throws {
        let (ticks, continuation) = AsyncStream.makeStream(of: Void.self)
        let counter = TickCounter(continuation)
        let loop = try await ServiceLoop.start(
            name: "es-timer-test", delegate: counter, rxBufferSize: 4096, txPacketSize: 0, perSessionDataSize: 0,
            permessageDeflate: false, tickInterval: .milliseconds(10), timerLead: .milliseconds(5),
            configure: TransportEventLoop.clientContext)
        var seen = 0
        for await _ in ticks {
            seen += 1
            if seen == 5 { break }
        }
        await loop.shutdown()
        #expect(seen == 5)
    }
}
