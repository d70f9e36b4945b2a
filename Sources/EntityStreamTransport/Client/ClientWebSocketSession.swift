import CLibWebSockets
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import EntityStreamLocking

/// One client WebSocket connection: the libwebsockets shell around a
/// ``WebSocketSessionCore`` (whose state machine decides the lifecycle and
/// how the connection ended), plus the client's outbound queue.
///
/// Everything but ``outbound`` is touched only on the loop's service thread;
/// ``outbound`` is shared under a lock with the tasks that send, and the
/// core's termination with the tasks that wait.
final class ClientWebSocketSession: ClientSession, @unchecked Sendable {
    struct Outbound {
        var messages: [[UInt8]] = []
        var closeRequest: (code: UInt16, reason: String)?
        var writeRequested = false
        var closed = false
        /// Why the connection is to be dropped at once (see ``WebSocketConnection/abort(_:)``).
        var abortRequested: String?
    }

    let id: Int
    let url: TransportURL
    let address: String
    let configuration: WebSocketConfiguration
    let loop: ServiceLoop
    unowned let dispatcher: ClientDispatcher
    let core: WebSocketSessionCore
    let outbound = LockedState(Outbound())

    // Service thread.
    private var wsi: OpaquePointer?
    private var openContinuation: CheckedContinuation<Result<Void, TransportError>, Never>?
    private var pingRequested = false
    private var handshake = TLSHandshakeRecord()
    /// Set on the service thread before the caller is answered.
    private let contextRace = Atomic<Bool>(false)
    var lostToContextCreation: Bool { contextRace.load(ordering: .acquiring) }

    var inbound: InboundChannel { core.inbound }

    init(id: Int, url: TransportURL, address: String, configuration: WebSocketConfiguration,
         loop: ServiceLoop, dispatcher: ClientDispatcher) {
        self.id = id
        self.url = url
        self.address = address
        self.configuration = configuration
        self.loop = loop
        self.dispatcher = dispatcher
        let keepalive: WebSocketSessionCore.Machine.Keepalive? = configuration.pingIntervalSeconds == 0 ? nil : .init(
            pingInterval: .seconds(Int(configuration.pingIntervalSeconds)),
            hangUpAfter: .seconds(Int(max(configuration.hangUpAfterSeconds, configuration.pingIntervalSeconds + 1))))
        let sessionID = id
        core = WebSocketSessionCore(role: .client, keepalive: keepalive, maximumMessageSize: configuration.maximumMessageSize,
                                    receiveBufferLimit: configuration.receiveBufferLimit) { [loop, dispatcher] in
            loop.execute { dispatcher.session(sessionID, as: ClientWebSocketSession.self)?.resumeReading() }
        }
    }

    /// Service thread: remembers who to tell when the upgrade finishes, then connects.
    func start(context: OpaquePointer, continuation: CheckedContinuation<Result<Void, TransportError>, Never>) {
        if let ending = core.ending {
            // Cancelled or timed out before the connection could start.
            if case .failure(let error) = ending { continuation.resume(returning: .failure(error)) } else {
                continuation.resume(returning: .failure(.cancelled))
            }
            return
        }
        openContinuation = continuation
        dispatcher.register(self)
        connect(context: context)
    }

    func connect(context: OpaquePointer) {
        handshake.connecting(epoch: TLSContextEpoch.current)
        // Keepalive is the state machine's (see WebSocketSessionStateMachine): libwebsockets' own is off.
        let request = ClientConnectRequest(url: url, address: address, sessionID: id, method: nil,
                                           allowSelfSignedCertificates: configuration.allowSelfSignedCertificates,
                                           extraFlags: LCCSCF_PRIORITIZE_READS.rawValue,
                                           retryPolicy: RetryPolicies.keepalive(ping: 0, hangUp: 0))
        if !request.open(context: context) {
            finish(core.connectFailed(.connectionFailed(detail: "libwebsockets refused to start the connection to \(url)")))
            dispatcher.unregister(self)
        }
    }

    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        self.wsi = wsi
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi: wsi, input: input, length: length)

        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            if core.established() {
                openContinuation?.resume(returning: .success(()))
                openContinuation = nil
            }
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE:
            switch core.receive(wsi: wsi, input: input, length: length) {
            case .firstMessageOfTurn: dispatcher.markDirty(self)
            case .close(let code, let reason): requestClose(code: code, reason: reason)
            case .nothing: break
            }
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            core.pongReceived()
            return 0

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            core.peerInitiatedClose(input: input, length: length)
            return 0

        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeNext(wsi: wsi)

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            if handshake.failureMayBeContextRace(usesTLS: url.usesTLS, epochNow: TLSContextEpoch.current) {
                contextRace.store(true, ordering: .releasing)
            }
            let status = Int(lws_http_client_http_response(wsi))
            finish(core.connectFailed(ConnectErrorClassifier.classify(text, url: url, handshakeStatus: status,
                                                                      certificateProblem: handshake.certificateProblem)))
            return 0

        case LWS_CALLBACK_CLIENT_CLOSED:
            finish(core.socketClosed())
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            self.wsi = nil
            finish(core.socketClosed())
            dispatcher.unregister(self)
            return 0

        default:
            return 0
        }
    }

    /// Service thread: the TLS library's verdict on the server's certificate
    /// (a refusal explains a failed handshake; see ``TLSHandshakeRecord``).
    func certificateVerified(_ problem: TLSCertificateProblem?) {
        handshake.certificateVerified(problem)
    }

    private func appendHeaders(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let input, !configuration.headers.fields.isEmpty else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return 0 }
        let end = start + length
        for field in configuration.headers {
            let name = field.name.hasSuffix(":") ? field.name : field.name + ":"
            let value = Array(field.value.utf8)
            let status = name.withCString { namePointer in
                value.withUnsafeBufferPointer { valueBuffer in
                    lws_add_http_header_by_name(wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                valueBuffer.baseAddress, Int32(valueBuffer.count), cursor, end)
                }
            }
            if status != 0 { return -1 }
        }
        return 0
    }

    func turnEnded() {
        core.turnEnded(wsi: wsi)
    }

    /// Service thread: the consumer drained its buffer.
    func resumeReading() {
        core.resumeReading(wsi: wsi)
    }

    /// Service thread: a keepalive tick.
    func tick(now: ContinuousClock.Instant) {
        guard let wsi else { return }
        switch core.tick(now: now) {
        case .nothing: break
        case .sendPing:
            pingRequested = true
            lws_callback_on_writable(wsi)
        case .hangUp:
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
        }
    }

    private func writeNext(wsi: OpaquePointer) -> Int32 {
        if pingRequested {
            pingRequested = false
            var frame = [UInt8](repeating: 0, count: Int(es_lws_pre()))
            let written = frame.withUnsafeMutableBufferPointer { pointer in
                lws_write(wsi, pointer.baseAddress! + Int(es_lws_pre()), 0, LWS_WRITE_PING)
            }
            if written < 0 { return -1 }
            let pending = outbound.withLock { $0.writeRequested }
            if pending { lws_callback_on_writable(wsi) }
            return 0
        }
        enum Action { case write([UInt8], more: Bool), close(UInt16, String), nothing }
        let action = outbound.withLock { state -> Action in
            if !state.messages.isEmpty {
                let message = state.messages.removeFirst()
                let more = !state.messages.isEmpty || state.closeRequest != nil
                if !more { state.writeRequested = false }
                return .write(message, more: more)
            }
            if let close = state.closeRequest {
                state.closeRequest = nil
                state.closed = true
                return .close(close.code, close.reason)
            }
            state.writeRequested = false
            return .nothing
        }
        switch action {
        case .write(var buffer, let more):
            let pre = Int(es_lws_pre())
            let length = buffer.count - pre
            let written = buffer.withUnsafeMutableBufferPointer { pointer in
                lws_write(wsi, pointer.baseAddress! + pre, length, LWS_WRITE_TEXT)
            }
            if written < length { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        case .close(let code, let reason):
            core.closeFrameSent(code: code, reason: reason)
            var reasonBytes = Array(reason.utf8.prefix(123))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &reasonBytes, reasonBytes.count)
            return -1
        case .nothing:
            return 0
        }
    }

    /// Service thread: queue a close frame after what is already queued.
    private func requestClose(code: UInt16, reason: String) {
        let needsWake = outbound.withLock { state -> Bool in
            guard !state.closed, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if needsWake, let wsi { lws_callback_on_writable(wsi) }
    }

    /// Service thread: a requested write or close needs a WRITEABLE callback;
    /// a requested abort drops the connection at once.
    func requestWritable() {
        guard let wsi, !core.isFinished else { return }
        if let detail = outbound.withLock({ $0.abortRequested }) {
            // No frame can go out once the socket is shut down: the connection just ends.
            let fd = lws_get_socket_fd(wsi)
            if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            core.aborted(detail: detail)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
        } else {
            lws_callback_on_writable(wsi)
        }
    }

    func beginShutdown() {
        switch core.shutdownBegan() {
        case .sendClose(let code, let reason): requestClose(code: code, reason: reason)
        case .drop: if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
        case .nothing: break
        }
    }

    func contextDestroyed() {
        finish(core.contextDestroyed())
        dispatcher.unregister(self)
    }

    /// Service thread: give up on a connect still in progress (timeout, cancellation).
    func abandonConnect(with error: TransportError) {
        guard let ending = core.abandonConnect(error) else { return }
        finish(ending)
        if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
    }

    /// The connection ended (`ending` nil: it had already): tell the opener, drop the queue.
    private func finish(_ ending: WebSocketSessionCore.Ending?) {
        guard let ending else { return }
        if let openContinuation {
            self.openContinuation = nil
            switch ending {
            case .failure(let error): openContinuation.resume(returning: .failure(error))
            case .success(let info):
                openContinuation.resume(returning: .failure(.connectionFailed(detail: "closed during the upgrade: \(info)")))
            }
        }
        outbound.withLock { $0.closed = true; $0.messages = [] }
    }
}

extension ClientDispatcher {
    /// The live session with `id`, if it is of type `T`.
    func session<T>(_ id: Int, as type: T.Type) -> T? {
        sessionByID(id) as? T
    }
}
