import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

/// Instants for the state machines: a fixed origin plus seconds.
private let origin = ContinuousClock.now
private func at(_ seconds: Double) -> ContinuousClock.Instant { origin + .milliseconds(Int64(seconds * 1000)) }

@Suite("Service loop lifecycle", .bounded)
struct ServiceLoopLifecycleTests {
    /// The first command of a turn wakes the thread; the next ones ride along; all run in order.
    @Test func commandsQueueInOrderAndWakeOnce() {
        var lifecycle = ServiceLoopLifecycle<Int, ContinuousClock.Instant>(shutdownGrace: .seconds(2))
        #expect(lifecycle.enqueue(1) == .wake)
        #expect(lifecycle.enqueue(2) == .queued)
        #expect(lifecycle.takeCommands() == [1, 2])
        #expect(lifecycle.enqueue(3) == .wake)
    }

    /// A stop request starts a polite shutdown with a deadline; the loop exits when no
    /// connection is left, or at the deadline with connections still closing.
    @Test func stopDrainsThenExits() {
        var lifecycle = ServiceLoopLifecycle<Int, ContinuousClock.Instant>(shutdownGrace: .seconds(2))
        #expect(lifecycle.turnEnded(now: at(0), hasLiveConnections: true) == .continue)
        let outcome1 = lifecycle.requestStop()
        #expect(outcome1)
        let outcome2 = lifecycle.requestStop()
        #expect(!outcome2, "a second request changes nothing")
        #expect(lifecycle.turnEnded(now: at(1), hasLiveConnections: true) == .beginShutdown(deadline: at(3)))
        #expect(lifecycle.turnEnded(now: at(2), hasLiveConnections: true) == .continue)
        #expect(lifecycle.turnEnded(now: at(3), hasLiveConnections: true) == .exit)

        var quick = ServiceLoopLifecycle<Int, ContinuousClock.Instant>(shutdownGrace: .seconds(2))
        _ = quick.requestStop()
        _ = quick.turnEnded(now: at(0), hasLiveConnections: true)
        #expect(quick.turnEnded(now: at(0.5), hasLiveConnections: false) == .exit)
    }

    /// Commands accepted just before the loop exits are handed back to run (they used to be
    /// dropped, leaving their callers waiting); after the exit nothing is accepted.
    @Test func commandsAcceptedBeforeExitAreNotLost() {
        var lifecycle = ServiceLoopLifecycle<Int, ContinuousClock.Instant>(shutdownGrace: .seconds(2))
        _ = lifecycle.requestStop()
        #expect(lifecycle.enqueue(7) == .wake, "still accepted while draining")
        #expect(lifecycle.enqueue(8) == .queued)
        #expect(lifecycle.exit() == [7, 8])
        #expect(lifecycle.state == .stopped)
        #expect(lifecycle.enqueue(9) == .refused)
        #expect(!lifecycle.acceptsWakeUps)
        #expect(lifecycle.exit().isEmpty)
    }
}

@Suite("Event loop lifecycle", .bounded)
struct EventLoopLifecycleTests {
    typealias Lifecycle = EventLoopLifecycle<String, Int, String>

    /// The first caller starts the loop; later callers wait and receive it when the start ends.
    @Test func oneStarterOthersWait() {
        var lifecycle = Lifecycle()
        guard case .start = lifecycle.claim() else { Issue.record("first claim must start"); return }
        guard case .wait = lifecycle.claim() else { Issue.record("second claim must wait"); return }
        guard case .stored = lifecycle.wait(1) else { Issue.record("waiter must be stored"); return }
        guard case .running(let loop, let waiters) = lifecycle.started("loop") else { Issue.record("start must run"); return }
        #expect(loop == "loop" && waiters == [1])
        guard case .ready(let ready) = lifecycle.claim() else { Issue.record("running loop must be shared"); return }
        #expect(ready == "loop")
    }

    /// A shutdown during the start is stored; when the start ends, the waiters of the loop
    /// are refused, the fresh loop is handed over to be stopped, and the shutdown is answered.
    @Test func shutdownDuringStartIsAnswered() {
        var lifecycle = Lifecycle()
        _ = lifecycle.claim()
        _ = lifecycle.wait(1)
        guard case .stored = lifecycle.shutdown("first") else { Issue.record("shutdown must wait for the start"); return }
        guard case .stored = lifecycle.shutdown("second") else { Issue.record("second shutdown must wait too"); return }
        guard case .shutDownAfterStart(let loop, let waiters, let shutdownWaiters) = lifecycle.started("loop") else {
            Issue.record("the start must end in a shutdown")
            return
        }
        #expect(loop == "loop" && waiters == [1] && shutdownWaiters == ["first", "second"])
        guard case .refused = lifecycle.claim() else { Issue.record("a shut-down loop refuses"); return }
        guard case .stop(let stopped) = lifecycle.shutdown("late") else { Issue.record("a later shutdown awaits the loop"); return }
        #expect(stopped == "loop")
    }

    /// A failed start returns to idle so the next caller tries again; before any start, shutdown is immediate.
    @Test func failedStartAndIdleShutdown() {
        var lifecycle = Lifecycle()
        _ = lifecycle.claim()
        _ = lifecycle.wait(4)
        guard case .failed(let waiters) = lifecycle.started(nil) else { Issue.record("the start must fail"); return }
        #expect(waiters == [4])
        guard case .start = lifecycle.claim() else { Issue.record("the next caller starts again"); return }

        var idle = Lifecycle()
        guard case .done = idle.shutdown("x") else { Issue.record("nothing to stop"); return }
        guard case .refused = idle.claim() else { Issue.record("refused after shutdown"); return }
    }
}

@Suite("WebSocket session state machine", .bounded)
struct WebSocketSessionStateMachineTests {
    typealias Machine = WebSocketSessionStateMachine<ContinuousClock.Instant>

    /// How a connection ended follows precedence: our failure, then the peer's close, then ours, then shutdown, then lost.
    @Test func endingFollowsPrecedence() {
        var tooLarge = Machine(role: .server, now: at(0))
        _ = tooLarge.peerClosed(code: 1000, reason: "bye")
        #expect(tooLarge.messageTooLarge(limit: 4) == (1009, "message exceeds 4 bytes"))
        #expect(tooLarge.socketClosed() == .failure(.messageTooLarge(limit: 4)))
        #expect(tooLarge.socketClosed() == nil, "decided once")

        var peer = Machine(role: .server, now: at(0))
        peer.closeFrameSent(code: 1000, reason: "ours")
        _ = peer.peerClosed(code: 4400, reason: "theirs")
        #expect(peer.socketClosed() == .success(CloseInfo(code: 4400, reason: "theirs", initiatedByPeer: true)))

        var ours = Machine(role: .server, now: at(0))
        ours.closeFrameSent(code: 1000, reason: "done")
        #expect(ours.socketClosed() == .success(CloseInfo(code: 1000, reason: "done", initiatedByPeer: false)))

        var shutdown = Machine(role: .server, now: at(0))
        #expect(shutdown.shutdownBegan() == .sendClose(code: 1001, reason: "server shutting down"))
        #expect(shutdown.socketClosed() == .failure(.shutDown))

        var lost = Machine(role: .client, now: at(0))
        let outcome3 = lost.established(now: at(0))
        #expect(outcome3)
        #expect(lost.socketClosed() == .failure(.connectionLost(detail: "the socket closed")))
    }

    /// A client closed before the upgrade finished failed to connect; an abandoned connect ends at once, once.
    @Test func connectingEndings() {
        var early = Machine(role: .client, now: at(0))
        #expect(early.socketClosed() == .failure(.connectionFailed(detail: "closed before the WebSocket upgrade completed")))

        var abandoned = Machine(role: .client, now: at(0))
        #expect(abandoned.shutdownBegan() == .drop)
        #expect(abandoned.abandonConnect(.cancelled) == .failure(.cancelled))
        #expect(abandoned.abandonConnect(.timedOut(operation: "x", seconds: 1)) == nil)
        let outcome4 = abandoned.established(now: at(1))
        #expect(!outcome4, "too late to open")

        var open = Machine(role: .client, now: at(0))
        _ = open.established(now: at(0))
        #expect(open.abandonConnect(.cancelled) == nil, "an open connection is not abandoned")
    }

    /// Keepalive: a ping after the interval of silence, a hang-up (peer unresponsive) after the
    /// hang-up time without hearing anything; anything heard starts the count again.
    @Test func keepaliveDecidesPeerUnresponsive() {
        var machine = Machine(role: .client, keepalive: .init(pingInterval: .seconds(30), hangUpAfter: .seconds(60)), now: at(0))
        _ = machine.established(now: at(0))
        #expect(machine.tick(now: at(29)) == .nothing)
        #expect(machine.tick(now: at(30)) == .sendPing)
        #expect(machine.tick(now: at(45)) == .nothing, "one ping outstanding")
        machine.heard(now: at(50))
        #expect(machine.tick(now: at(79)) == .nothing)
        #expect(machine.tick(now: at(80)) == .sendPing)
        #expect(machine.tick(now: at(109)) == .nothing)
        #expect(machine.tick(now: at(110)) == .hangUp)
        #expect(machine.socketClosed() == .failure(.peerUnresponsive(seconds: 60)))
    }

    /// Close codes a peer may not send (RFC 6455 §7.4) are answered with 1002; valid ones are echoed.
    @Test(arguments: [(UInt16(1000), true), (1001, true), (1011, true), (3000, true), (4999, true),
                                              (5000, false), (999, false), (1005, false), (1006, false), (2999, false)])
    func invalidCloseCodesAreAnsweredWithProtocolError(code: UInt16, valid: Bool) {
        var machine = Machine(role: .server, now: at(0))
        #expect(machine.peerClosed(code: code, reason: "") == (valid ? .echo : .answerProtocolError))
    }
}
