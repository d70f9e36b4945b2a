import CLibWebSockets
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// One accepted WebSocket client's state on the server.
///
/// ``shared`` (the outbound queue, close requests, waiters) is used by
/// sending tasks and the service thread under one lock; the rest is service
/// thread only.
final class ServerWebSocketSession: @unchecked Sendable {
    struct Shared {
        var queue = ServerOutboundQueue()
        var writeRequested = false
        var closeRequest: (code: UInt16, reason: String)?
        var abortRequested = false
        var closed = false
        var spaceWaiters: [CheckedContinuation<Void, Never>] = []
        var flushWaiters: [CheckedContinuation<Void, Never>] = []
        var result: Result<CloseInfo, TransportError>?
        var endWaiters: [CheckedContinuation<Result<CloseInfo, TransportError>, Never>] = []
    }

    let id: Int
    let request: WebSocketUpgradeRequest
    let configuration: ServerConfiguration
    let loop: ServiceLoop
    let inbound: InboundChannel
    let shared = LockedState(Shared())

    // Service thread.
    private(set) var wsi: OpaquePointer?
    private unowned let dispatcher: ServerDispatcher
    private var assembly: InboundAssembly
    private var failure: TransportError?
    private var peerClose: CloseInfo?
    private var localClose: CloseInfo?
    private var finished = false

    init(id: Int, wsi: OpaquePointer, request: WebSocketUpgradeRequest, configuration: ServerConfiguration,
         loop: ServiceLoop, dispatcher: ServerDispatcher) {
        self.id = id
        self.wsi = wsi
        self.request = request
        self.configuration = configuration
        self.loop = loop
        self.dispatcher = dispatcher
        self.assembly = InboundAssembly(maximumMessageSize: configuration.maximumMessageSize)
        self.inbound = InboundChannel(bufferLimit: configuration.receiveBufferLimit) { [loop, dispatcher] in
            loop.execute { dispatcher.webSocket(id)?.resumeReading() }
        }
    }

    // MARK: Service thread

    func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
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
        if assembly.handOff(to: inbound), let wsi { lws_rx_flow_control(wsi, 0) }
    }

    func resumeReading() {
        if let wsi, !finished { lws_rx_flow_control(wsi, 1) }
    }

    func peerInitiatedClose(input: UnsafeMutableRawPointer?, length: Int) {
        peerClose = ClientWebSocketSession.parseClose(input: input, length: length, initiatedByPeer: true)
    }

    /// SERVER_WRITEABLE: one `lws_write` with the oldest chunk, or the close.
    func writeNext(wsi: OpaquePointer) -> Int32 {
        enum Action { case write(ServerOutboundQueue.Chunk, more: Bool), close(UInt16, String), abort, nothing }
        var waiters: [CheckedContinuation<Void, Never>] = []
        var flushed: [CheckedContinuation<Void, Never>] = []
        let action = shared.withLock { state -> Action in
            if state.abortRequested { return .abort }
            if let chunk = state.queue.takeChunk() {
                let more = !state.queue.isEmpty || state.closeRequest != nil
                if !more { state.writeRequested = false }
                if state.queue.queuedBytes < configuration.outboundQueueLimit {
                    waiters = state.spaceWaiters
                    state.spaceWaiters = []
                }
                if state.queue.isEmpty {
                    flushed = state.flushWaiters
                    state.flushWaiters = []
                }
                return .write(chunk, more: more)
            }
            if let close = state.closeRequest {
                state.closeRequest = nil
                state.closed = true
                return .close(close.code, close.reason)
            }
            state.writeRequested = false
            return .nothing
        }
        for waiter in waiters { waiter.resume() }
        switch action {
        case .write(var chunk, let more):
            let length = chunk.bytes.count - chunk.start
            let written = chunk.bytes.withUnsafeMutableBufferPointer { pointer in
                lws_write(wsi, pointer.baseAddress! + chunk.start, length, LWS_WRITE_HTTP)
            }
            for waiter in flushed { waiter.resume() }
            if written < 0 { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        case .close(let code, let reason):
            localClose = CloseInfo(code: code, reason: reason, initiatedByPeer: false)
            var reasonBytes = Array(reason.utf8.prefix(123))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &reasonBytes, reasonBytes.count)
            return -1
        case .abort:
            abortNow(wsi: wsi)
            return -1
        case .nothing:
            return 0
        }
    }

    /// Service thread: a sender queued data or a close.
    func requestWritable() {
        guard let wsi, !finished else { return }
        let abort = shared.withLock { $0.abortRequested }
        if abort {
            abortNow(wsi: wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
        } else {
            lws_callback_on_writable(wsi)
        }
    }

    private func abortNow(wsi: OpaquePointer) {
        // Shut the socket down first so no close frame can go out: the peer
        // sees the connection vanish, as with a network failure.
        let fd = lws_get_socket_fd(wsi)
        if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        failure = failure ?? .connectionLost(detail: "aborted by the server")
    }

    func requestClose(code: UInt16, reason: String) {
        let wake = shared.withLock { state -> Bool in
            guard !state.closed, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake, let wsi { lws_callback_on_writable(wsi) }
    }

    func closed() {
        guard !finished else { return }
        finished = true
        wsi = nil
        let result: Result<CloseInfo, TransportError>
        if let failure { result = .failure(failure) }
        else if let peerClose { result = .success(peerClose) }
        else if let localClose { result = .success(localClose) }
        else { result = .failure(.connectionLost(detail: "the client went away")) }
        _ = assembly.handOff(to: inbound)
        inbound.finish(result.map { _ in () })
        let (spaceWaiters, endWaiters) = shared.withLock { state in
            state.closed = true
            state.queue.removeAll()
            state.result = result
            defer { state.spaceWaiters = []; state.flushWaiters = []; state.endWaiters = [] }
            return (state.spaceWaiters + state.flushWaiters, state.endWaiters)
        }
        for waiter in spaceWaiters { waiter.resume() }
        for waiter in endWaiters { waiter.resume(returning: result) }
    }
}
