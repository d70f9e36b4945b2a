import CLibWebSockets
import Locking

/// One client WebSocket connection's state.
///
/// Fields under "service thread" are touched only on the loop's service
/// thread; ``outbound`` and ``termination`` are shared under locks with the
/// tasks that send and wait.
final class ClientWebSocketSession: ClientSession, @unchecked Sendable {
    struct Outbound {
        var messages: [[UInt8]] = []
        var closeRequest: (code: UInt16, reason: String)?
        var writeRequested = false
        var closed = false
    }

    struct Termination {
        var result: Result<CloseInfo, TransportError>?
        var waiters: [CheckedContinuation<Result<CloseInfo, TransportError>, Never>] = []
    }

    let id: Int
    let url: TransportURL
    let address: String
    let configuration: WebSocketConfiguration
    let loop: ServiceLoop
    unowned let dispatcher: ClientDispatcher
    let inbound: InboundChannel
    let outbound = LockedState(Outbound())
    let termination = LockedState(Termination())

    // Service thread.
    private var wsi: OpaquePointer?
    private var assembly: InboundAssembly
    private var openContinuation: CheckedContinuation<Result<Void, TransportError>, Never>?
    private var established = false
    private var peerClose: CloseInfo?
    private var localClose: CloseInfo?
    private var failure: TransportError?
    private var shuttingDown = false
    private var lastValidated = ContinuousClock.now
    private var finished = false

    init(id: Int, url: TransportURL, address: String, configuration: WebSocketConfiguration,
         loop: ServiceLoop, dispatcher: ClientDispatcher) {
        self.id = id
        self.url = url
        self.address = address
        self.configuration = configuration
        self.loop = loop
        self.dispatcher = dispatcher
        self.assembly = InboundAssembly(maximumMessageSize: configuration.maximumMessageSize)
        let sessionID = id
        self.inbound = InboundChannel(bufferLimit: configuration.receiveBufferLimit) { [loop, dispatcher] in
            loop.execute { dispatcher.session(sessionID, as: ClientWebSocketSession.self)?.resumeReading() }
        }
    }

    /// Service thread: remembers who to tell when the upgrade finishes, then connects.
    func start(context: OpaquePointer, continuation: CheckedContinuation<Result<Void, TransportError>, Never>) {
        if finished {
            // Cancelled or timed out before the connection could start.
            let ending = termination.withLock { $0.result }
            if case .failure(let error)? = ending { continuation.resume(returning: .failure(error)) } else {
                continuation.resume(returning: .failure(.cancelled))
            }
            return
        }
        openContinuation = continuation
        dispatcher.register(self)
        connect(context: context)
    }

    func connect(context: OpaquePointer) {
        let request = ClientConnectRequest(url: url, address: address, sessionID: id, method: nil,
                                           allowSelfSignedCertificates: configuration.allowSelfSignedCertificates,
                                           extraFlags: LCCSCF_PRIORITIZE_READS.rawValue,
                                           retryPolicy: RetryPolicies.keepalive(ping: configuration.pingIntervalSeconds,
                                                                                hangUp: configuration.hangUpAfterSeconds))
        if !request.open(context: context) {
            finish(.failure(.connectionFailed(detail: "libwebsockets refused to start the connection to \(url)")))
            dispatcher.unregister(self)
        }
    }

    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        self.wsi = wsi
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi: wsi, input: input, length: length)

        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            established = true
            lastValidated = .now
            openContinuation?.resume(returning: .success(()))
            openContinuation = nil
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE:
            receive(wsi: wsi, input: input, length: length)
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            lastValidated = .now
            return 0

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            peerClose = Self.parseClose(input: input, length: length, initiatedByPeer: true)
            return 0

        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeNext(wsi: wsi)

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let text = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
            let status = Int(lws_http_client_http_response(wsi))
            finish(.failure(ConnectErrorClassifier.classify(text, url: url, handshakeStatus: status)))
            return 0

        case LWS_CALLBACK_CLIENT_CLOSED:
            finishAfterClose()
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            self.wsi = nil
            if !finished { finishAfterClose() }
            dispatcher.unregister(self)
            return 0

        default:
            return 0
        }
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

    private func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
        switch assembly.receive(wsi: wsi, input: input, length: length) {
        case .firstMessageOfTurn:
            dispatcher.markDirty(self)
        case .tooLarge:
            failure = .messageTooLarge(limit: configuration.maximumMessageSize)
            requestClose(code: 1009, reason: "message exceeds \(configuration.maximumMessageSize) bytes")
        case .nothing:
            break
        }
    }

    func turnEnded() {
        if assembly.handOff(to: inbound), let wsi {
            lws_rx_flow_control(wsi, 0)
        }
    }

    /// Service thread: the consumer drained its buffer.
    func resumeReading() {
        if let wsi, !finished { lws_rx_flow_control(wsi, 1) }
    }

    private func writeNext(wsi: OpaquePointer) -> Int32 {
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
            localClose = CloseInfo(code: code, reason: reason, initiatedByPeer: false)
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

    /// Service thread: a requested write or close needs a WRITEABLE callback.
    func requestWritable() {
        if let wsi, !finished { lws_callback_on_writable(wsi) }
    }

    func beginShutdown() {
        shuttingDown = true
        if established && !finished {
            requestClose(code: 1001, reason: "client shutting down")
        } else if let wsi {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
        }
    }

    func contextDestroyed() {
        if !finished { finish(.failure(.shutDown)) }
        dispatcher.unregister(self)
    }

    /// Service thread: abandon a connect that takes too long.
    func connectTimedOut() {
        abandonConnect(with: .timedOut(operation: "opening \(url)", seconds: Double(configuration.connectTimeout.components.seconds)))
    }

    /// Service thread: give up on a connect still in progress (timeout, cancellation).
    func abandonConnect(with error: TransportError) {
        guard !established, !finished else { return }
        finish(.failure(error))
        if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
    }

    private func finishAfterClose() {
        if let failure { return finish(.failure(failure)) }
        if let peerClose { return finish(.success(peerClose)) }
        if let localClose { return finish(.success(localClose)) }
        if shuttingDown { return finish(.failure(.shutDown)) }
        if !established { return finish(.failure(.connectionFailed(detail: "closed before the WebSocket upgrade completed"))) }
        let silence = ContinuousClock.now - lastValidated
        let hangUp = Int(configuration.hangUpAfterSeconds)
        if configuration.pingIntervalSeconds > 0 && silence >= .seconds(max(hangUp - 1, 1)) {
            finish(.failure(.peerUnresponsive(seconds: hangUp)))
        } else {
            finish(.failure(.connectionLost(detail: "the socket closed")))
        }
    }

    private func finish(_ result: Result<CloseInfo, TransportError>) {
        guard !finished else { return }
        finished = true
        if let openContinuation {
            self.openContinuation = nil
            switch result {
            case .failure(let error): openContinuation.resume(returning: .failure(error))
            case .success(let info):
                openContinuation.resume(returning: .failure(.connectionFailed(detail: "closed during the upgrade: \(info)")))
            }
        }
        _ = assembly.handOff(to: inbound)
        inbound.finish(result.map { _ in () })
        outbound.withLock { $0.closed = true; $0.messages = [] }
        let waiters = termination.withLock { state -> [CheckedContinuation<Result<CloseInfo, TransportError>, Never>] in
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    static func parseClose(input: UnsafeMutableRawPointer?, length: Int, initiatedByPeer: Bool) -> CloseInfo {
        guard let input, length >= 2 else { return CloseInfo(code: nil, reason: "", initiatedByPeer: initiatedByPeer) }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reason = String(decoding: bytes[2...], as: UTF8.self)
        return CloseInfo(code: code, reason: reason, initiatedByPeer: initiatedByPeer)
    }
}

extension ClientDispatcher {
    /// The live session with `id`, if it is of type `T`.
    func session<T>(_ id: Int, as type: T.Type) -> T? {
        sessionByID(id) as? T
    }
}
