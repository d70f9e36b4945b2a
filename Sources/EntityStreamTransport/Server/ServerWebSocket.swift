import EntityStreamLocking

/// One client connected to a ``TransportServer`` over WebSocket.
///
/// Send from any task; each client has its own bounded outbound queue, so a
/// slow client never stalls the others — when its queue is full the server's
/// ``SlowClientPolicy`` decides (wait, drop oldest, or disconnect). Read what
/// the client sends from ``inbound``. Thread-safe.
public final class ServerWebSocket: Sendable {
    /// The upgrade request: path, query and headers.
    public let request: WebSocketUpgradeRequest
    /// Messages from the client, in batches.
    public let inbound: WebSocketInbound
    let session: ServerWebSocketSession

    init(session: ServerWebSocketSession) {
        self.session = session
        self.request = session.request
        self.inbound = WebSocketInbound(channel: session.inbound)
    }

    /// Queues a text message. With ``SlowClientPolicy/waitForSpace`` this
    /// suspends while the client's queue is full. Throws
    /// ``TransportError/notConnected`` once the connection is closing or closed.
    public func send(_ text: String) async throws(TransportError) {
        var text = text
        while true {
            let step = text.withUTF8 { buffer in
                Result { () throws(TransportError) -> EnqueueStep in try enqueue(UnsafeRawBufferPointer(buffer)) }
            }
            if try await settle(step.get()) { return }
        }
    }

    /// Queues a text message given as UTF-8 bytes (not validated).
    public func send(bytes: [UInt8]) async throws(TransportError) {
        try await send(bytes: bytes[...])
    }

    /// Queues a text message given as a slice of UTF-8 bytes (not validated;
    /// copied into the queue, so the slice's buffer may be reused at once).
    public func send(bytes: ArraySlice<UInt8>) async throws(TransportError) {
        while true {
            let step = bytes.withUnsafeBytes { buffer in
                Result { () throws(TransportError) -> EnqueueStep in try enqueue(buffer) }
            }
            if try await settle(step.get()) { return }
        }
    }

    /// Queues a text message when the client's queue has room, without
    /// suspending: true when queued. False when the queue is full (with
    /// ``SlowClientPolicy/waitForSpace``) or the connection is closing; then
    /// ``send(bytes:)`` waits for room, or throws. A producer sending many
    /// small messages skips an async call per message this way.
    public func trySend(bytes: ArraySlice<UInt8>) -> Bool {
        let step = bytes.withUnsafeBytes { buffer in
            Result { () throws(TransportError) -> EnqueueStep in try enqueue(buffer) }
        }
        switch step {
        case .success(.queued(let wake)):
            if wake { requestWritable() }
            return true
        case .success(.disconnect):
            requestWritable()
            return false
        case .success(.full), .failure:
            return false
        }
    }

    /// Queues a batch of framed messages without suspending, by the
    /// server's ``SlowClientPolicy``: all of them when the client's queue
    /// has room; under ``SlowClientPolicy/dropOldest`` all of them, then the
    /// oldest queued messages are dropped (and counted) until the queue is
    /// back to half its limit; under ``SlowClientPolicy/waitForSpace``
    /// nothing when the queue is full (``FramedSendOutcome/full``); under
    /// ``SlowClientPolicy/disconnect`` nothing when the batch would overflow
    /// it: the queued messages are dropped (counted) and the client is
    /// closed with 1008. One lock and no copy (the queue shares the batch's
    /// buffers), so a broadcast to many clients never waits for any of them
    /// and holds its bytes once, however many clients it goes to.
    public func trySend(_ messages: FramedTextMessages) -> FramedSendOutcome {
        guard !messages.isEmpty else { return .queued }
        let configuration = session.configuration
        let limit = configuration.outboundQueueLimit
        let (outcome, wake) = session.shared.withLock { state -> (FramedSendOutcome, Bool) in
            guard !state.closed, state.closeRequest == nil, !state.abortRequested else { return (.closed, false) }
            if state.queue.queuedBytes + messages.byteCount > limit {
                switch configuration.slowClientPolicy {
                case .waitForSpace:
                    if state.queue.queuedBytes >= limit { return (.full, false) }
                case .dropOldest:
                    break
                case .disconnect:
                    state.queue.dropAll()
                    state.closeRequest = (1008, "client too slow: outbound queue full")
                    defer { state.writeRequested = true }
                    return (.disconnected, !state.writeRequested)
                }
            }
            state.queue.append(messages)
            if configuration.slowClientPolicy == .dropOldest, state.queue.queuedBytes > limit {
                state.queue.dropOldest(toFit: limit / 2)
            }
            defer { state.writeRequested = true }
            return (.queued, !state.writeRequested)
        }
        if wake { requestWritable() }
        return outcome
    }

    private enum EnqueueStep { case queued(wake: Bool), full, disconnect }

    /// Returns true when the message is queued; waits for space when full.
    private func settle(_ step: EnqueueStep) async throws(TransportError) -> Bool {
        switch step {
        case .queued(let wake):
            if wake { requestWritable() }
            return true
        case .disconnect:
            requestWritable()
            throw .notConnected
        case .full:
            await waitForSpace()
            return false
        }
    }

    private func enqueue(_ payload: UnsafeRawBufferPointer) throws(TransportError) -> EnqueueStep {
        let configuration = session.configuration
        return try session.shared.withLock { (state: inout ServerWebSocketSession.Shared) throws(TransportError) -> EnqueueStep in
            guard !state.closed, state.closeRequest == nil, !state.abortRequested else { throw .notConnected }
            if state.queue.queuedBytes >= configuration.outboundQueueLimit {
                switch configuration.slowClientPolicy {
                case .waitForSpace: return .full
                case .dropOldest: state.queue.dropOldest(toFit: configuration.outboundQueueLimit / 2)
                case .disconnect:
                    state.closeRequest = (1008, "client too slow: outbound queue full")
                    state.writeRequested = true
                    return .disconnect
                }
            }
            state.queue.append(text: payload, fragmentSize: configuration.fragmentSize)
            defer { state.writeRequested = true }
            return .queued(wake: !state.writeRequested)
        }
    }

    private func waitForSpace() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = session.shared.withLock { state -> Bool in
                if state.closed || state.queue.queuedBytes < session.configuration.outboundQueueLimit { return true }
                state.spaceWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func requestWritable() {
        let session = self.session
        session.loop.execute { session.requestWritable() }
    }

    /// Messages dropped by ``SlowClientPolicy/dropOldest`` so far.
    public var droppedMessageCount: Int { session.shared.withLock { $0.queue.droppedMessages } }

    /// Messages handed to the socket so far (written, or buffered by
    /// libwebsockets for the next write).
    public var sentMessageCount: Int { session.shared.withLock { $0.queue.sentMessages } }

    /// Bytes queued and not yet written to the socket.
    public var queuedBytes: Int { session.shared.withLock { $0.queue.queuedBytes } }

    /// Closes after the queued messages with `code` and `reason`, and waits
    /// until the connection has ended. Idempotent.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        beginClose(code: code, reason: reason)
        _ = await closed()
    }

    /// Asks to close after the queued messages with `code` and `reason`,
    /// without waiting for the connection to end (``closed()`` tells when).
    /// Idempotent.
    public func beginClose(code: UInt16 = 1000, reason: String = "") {
        let wake = session.shared.withLock { state -> Bool in
            guard !state.closed, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake { requestWritable() }
    }

    /// Waits until everything queued so far has been written to the socket
    /// (or the connection has closed).
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = session.shared.withLock { state -> Bool in
                if state.closed || state.queue.isEmpty { return true }
                state.flushWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Drops the TCP connection at once, with no close frame and without
    /// flushing the queue — what a network failure looks like to the client.
    /// For fault injection.
    public func abort() {
        let changed = session.shared.withLock { state -> Bool in
            guard !state.closed, !state.abortRequested else { return false }
            state.abortRequested = true
            state.queue.removeAll()
            return true
        }
        if changed { requestWritable() }
    }

    /// Waits until the connection has ended and says how.
    public func closed() async -> Result<CloseInfo, TransportError> {
        await session.core.closed()
    }
}
