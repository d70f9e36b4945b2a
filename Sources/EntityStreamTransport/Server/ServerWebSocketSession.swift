import CLibWebSockets
import EntityStreamLocking
#if canImport(Glibc)
import Glibc
#endif

/// One accepted WebSocket client on the server: the libwebsockets shell
/// around a ``WebSocketSessionCore`` (the lifecycle and how the connection
/// ended are its state machine's), plus the client's bounded outbound queue.
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
    }

    let id: Int
    let request: WebSocketUpgradeRequest
    let configuration: ServerConfiguration
    let loop: ServiceLoop
    let core: WebSocketSessionCore
    let shared = LockedState(Shared())

    // Service thread.
    private(set) var wsi: OpaquePointer?
    private unowned let dispatcher: ServerDispatcher

    var inbound: InboundChannel { core.inbound }

    init(id: Int, wsi: OpaquePointer, request: WebSocketUpgradeRequest, configuration: ServerConfiguration,
         loop: ServiceLoop, dispatcher: ServerDispatcher) {
        self.id = id
        self.wsi = wsi
        self.request = request
        self.configuration = configuration
        self.loop = loop
        self.dispatcher = dispatcher
        core = WebSocketSessionCore(role: .server, keepalive: nil, maximumMessageSize: configuration.maximumMessageSize,
                                    receiveBufferLimit: configuration.receiveBufferLimit) { [loop, dispatcher] in
            loop.execute { dispatcher.webSocket(id)?.resumeReading() }
        }
    }

    // MARK: Service thread

    func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
        switch core.receive(wsi: wsi, input: input, length: length) {
        case .firstMessageOfTurn: dispatcher.markDirty(self)
        case .close(let code, let reason): requestClose(code: code, reason: reason)
        case .nothing: break
        }
    }

    func turnEnded() {
        core.turnEnded(wsi: wsi)
    }

    func resumeReading() {
        core.resumeReading(wsi: wsi)
    }

    func peerInitiatedClose(input: UnsafeMutableRawPointer?, length: Int) {
        core.peerInitiatedClose(input: input, length: length)
    }

    /// SERVER_WRITEABLE: one `lws_write` with the oldest queued messages (up
    /// to 64 KiB), or the close.
    func writeNext(wsi: OpaquePointer) -> Int32 {
        enum Action { case write(ServerOutboundQueue.Write, more: Bool), close(UInt16, String), abort, nothing }
        var waiters: [CheckedContinuation<Void, Never>] = []
        var flushed: [CheckedContinuation<Void, Never>] = []
        let action = shared.withLock { state -> Action in
            if state.abortRequested { return .abort }
            if let write = state.queue.takeWrite() {
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
                return .write(write, more: more)
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
        case .write(let write, let more):
            let written = dispatcher.withContiguousBytes(of: write) { pointer, count in
                // LWS_WRITE_HTTP: libwebsockets sends these bytes as they are (they are framed already) and
                // neither writes before them nor into them, so a buffer shared with other clients is safe
                // to hand it; what the socket does not take at once it copies into its own buffer.
                lws_write(wsi, UnsafeMutablePointer(mutating: pointer), count, LWS_WRITE_HTTP)
            }
            for waiter in flushed { waiter.resume() }
            if written < 0 { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        case .close(let code, let reason):
            core.closeFrameSent(code: code, reason: reason)
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
        guard let wsi, !core.isFinished else { return }
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
        core.aborted(detail: "aborted by the server")
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

    /// The loop shuts down: close politely (1001).
    func beginShutdown() {
        switch core.shutdownBegan() {
        case .sendClose(let code, let reason): requestClose(code: code, reason: reason)
        case .drop: if let wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC) }
        case .nothing: break
        }
    }

    /// The socket closed (or the context is going away): settle how it ended and wake every waiter.
    func closed(contextDestroyed: Bool = false) {
        guard (contextDestroyed ? core.contextDestroyed() : core.socketClosed()) != nil else { return }
        wsi = nil
        let waiters = shared.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = true
            state.queue.removeAll()
            defer { state.spaceWaiters = []; state.flushWaiters = [] }
            return state.spaceWaiters + state.flushWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
