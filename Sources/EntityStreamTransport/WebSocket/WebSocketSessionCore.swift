import CLibWebSockets
import EntityStreamLocking

/// What a client and a server WebSocket session share on the service
/// thread: the lifecycle (``WebSocketSessionStateMachine``), reassembly of
/// received chunks into messages, the once-per-turn hand-off to the
/// consumer with back-pressure, the peer's close frame, and telling every
/// waiter how the connection ended.
///
/// Service thread only, except ``termination`` (locked, read by waiting
/// tasks) and ``inbound`` (the consumer's side of the hand-off).
final class WebSocketSessionCore: @unchecked Sendable {
    typealias Machine = WebSocketSessionStateMachine<ContinuousClock.Instant>
    typealias Ending = Result<CloseInfo, TransportError>

    struct Termination {
        var result: Ending?
        var waiters: [CheckedContinuation<Ending, Never>] = []
    }

    /// What a received chunk asks of the session.
    enum ReceiveOutcome {
        case nothing
        /// The first complete message of this turn: mark the session for hand-off.
        case firstMessageOfTurn
        /// The connection fails: close with this code and reason.
        case close(code: UInt16, reason: String)
    }

    let inbound: InboundChannel
    let termination = LockedState(Termination())
    private(set) var machine: Machine
    private var assembly: InboundAssembly
    private let maximumMessageSize: Int
    private var receivedSinceTick = false

    init(role: Machine.Role, keepalive: Machine.Keepalive?, maximumMessageSize: Int, receiveBufferLimit: Int,
         resumeReading: @escaping @Sendable () -> Void) {
        machine = Machine(role: role, keepalive: keepalive, now: .now)
        assembly = InboundAssembly(maximumMessageSize: maximumMessageSize)
        self.maximumMessageSize = maximumMessageSize
        inbound = InboundChannel(bufferLimit: receiveBufferLimit, resumeReading: resumeReading)
    }

    var isFinished: Bool { machine.isFinished }
    var phase: Machine.Phase { machine.phase }

    /// A RECEIVE callback's chunk.
    func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> ReceiveOutcome {
        receivedSinceTick = true
        switch assembly.receive(wsi: wsi, input: input, length: length) {
        case .firstMessageOfTurn: return .firstMessageOfTurn
        case .nothing: return .nothing
        case .tooLarge:
            let close = machine.messageTooLarge(limit: maximumMessageSize)
            return .close(code: close.code, reason: close.reason)
        }
    }

    /// A pong arrived.
    func pongReceived() { receivedSinceTick = true }

    /// End of a service turn: hand the turn's messages over, pausing reading
    /// when the consumer is behind.
    func turnEnded(wsi: OpaquePointer?) {
        if assembly.handOff(to: inbound), let wsi { lws_rx_flow_control(wsi, 0) }
    }

    /// The consumer drained its buffer.
    func resumeReading(wsi: OpaquePointer?) {
        if let wsi, !machine.isFinished { lws_rx_flow_control(wsi, 1) }
    }

    /// The upgrade succeeded; true the first time.
    func established() -> Bool { machine.established(now: .now) }

    /// The peer's close frame (`input` is libwebsockets' buffer, which it echoes):
    /// a code not allowed on the wire is answered with 1002 instead (RFC 6455 §7.4).
    func peerInitiatedClose(input: UnsafeMutableRawPointer?, length: Int) {
        let info = Self.parseClose(input: input, length: length, initiatedByPeer: true)
        if machine.peerClosed(code: info.code, reason: info.reason) == .answerProtocolError, let input, length >= 2 {
            let bytes = input.assumingMemoryBound(to: UInt8.self)
            bytes[0] = UInt8(1002 >> 8)
            bytes[1] = UInt8(1002 & 0xFF)
        }
    }

    func closeFrameSent(code: UInt16, reason: String) { machine.closeFrameSent(code: code, reason: reason) }
    func aborted(detail: String) { machine.aborted(detail: detail) }
    func shutdownBegan() -> Machine.ShutdownAction { machine.shutdownBegan() }

    /// A keepalive tick.
    func tick(now: ContinuousClock.Instant) -> Machine.KeepaliveAction {
        if receivedSinceTick {
            receivedSinceTick = false
            machine.heard(now: now)
        }
        return machine.tick(now: now)
    }

    /// Ends with what the machine decides for these events; nil when already ended.
    func connectFailed(_ error: TransportError) -> Ending? { finish(machine.connectFailed(error)) }
    func abandonConnect(_ error: TransportError) -> Ending? { finish(machine.abandonConnect(error)) }
    func socketClosed() -> Ending? { finish(machine.socketClosed()) }
    func contextDestroyed() -> Ending? { finish(machine.contextDestroyed()) }

    /// Hands over what was received, ends the inbound sequence and resumes
    /// whoever waits for the end.
    private func finish(_ ending: Ending?) -> Ending? {
        guard let ending else { return nil }
        _ = assembly.handOff(to: inbound)
        inbound.finish(ending.map { _ in () })
        let waiters = termination.withLock { state -> [CheckedContinuation<Ending, Never>] in
            state.result = ending
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: ending) }
        return ending
    }

    /// Any task: waits until the connection has ended and says how.
    func closed() async -> Ending {
        await withCheckedContinuation { continuation in
            let ready = termination.withLock { state -> Ending? in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The ending, if the connection has ended (any thread).
    var ending: Ending? { termination.withLock { $0.result } }

    static func parseClose(input: UnsafeMutableRawPointer?, length: Int, initiatedByPeer: Bool) -> CloseInfo {
        guard let input, length >= 2 else { return CloseInfo(code: nil, reason: "", initiatedByPeer: initiatedByPeer) }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reason = String(decoding: bytes[2...], as: UTF8.self)
        return CloseInfo(code: code, reason: reason, initiatedByPeer: initiatedByPeer)
    }
}
