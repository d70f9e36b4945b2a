import CLibWebSockets
import EntityStreamLocking

/// An open client WebSocket connection.
///
/// Read messages from ``inbound`` (batches, from one task); send from any
/// task with ``send(_:)``; end it with ``close(code:reason:)``, which returns
/// once the close handshake is done. ``closed()`` reports how it ended.
/// Writes are queued in order and performed on the service thread, one
/// `lws_write` per WRITEABLE callback. Thread-safe.
public final class WebSocketConnection: Sendable {
    public let url: TransportURL
    /// Incoming messages, in batches. See ``WebSocketInbound``.
    public let inbound: WebSocketInbound
    let session: ClientWebSocketSession

    init(session: ClientWebSocketSession) {
        self.session = session
        self.url = session.url
        self.inbound = WebSocketInbound(channel: session.inbound)
    }

    /// Bytes received but not yet taken by the consumer of ``inbound``; it
    /// stays near ``WebSocketConfiguration/receiveBufferLimit`` because reading
    /// pauses beyond it.
    public var bufferedInboundBytes: Int { session.inbound.bufferedBytes }

    /// Queues a text message. Throws ``TransportError/notConnected`` once the
    /// connection is closing or closed.
    public func send(_ text: String) async throws(TransportError) {
        try enqueue(text)
    }

    /// Queues a text message at once, without suspending: messages queued
    /// from one task (or an actor) leave in the order they were queued.
    /// Throws ``TransportError/notConnected`` once the connection is closing or closed.
    public func enqueue(_ text: String) throws(TransportError) {
        var buffer = [UInt8](repeating: 0, count: Int(es_lws_pre()))
        buffer.append(contentsOf: text.utf8)
        try enqueue(framed: buffer)
    }

    private func enqueue(framed: [UInt8]) throws(TransportError) {
        let wake = try session.outbound.withLock { (state: inout ClientWebSocketSession.Outbound) throws(TransportError) -> Bool in
            guard !state.closed, state.closeRequest == nil else { throw .notConnected }
            state.messages.append(framed)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake { requestWritable() }
    }

    private func requestWritable() {
        let session = self.session
        session.loop.execute { session.requestWritable() }
    }

    /// Sends a close frame after any queued messages and waits until the
    /// connection has closed. Safe to call more than once, and after the
    /// peer closed.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        let wake = session.outbound.withLock { state -> Bool in
            guard !state.closed, state.closeRequest == nil else { return false }
            state.closeRequest = (code, reason)
            defer { state.writeRequested = true }
            return !state.writeRequested
        }
        if wake { requestWritable() }
        _ = await closed()
    }

    /// Sends a close frame as ``close(code:reason:)`` does, but waits at most
    /// `milliseconds` (on the caller's `sleep`) for the server's answer, then
    /// drops the connection. Returns false when the server did not answer in
    /// time (the connection was dropped).
    public func close(code: UInt16 = 1000, reason: String = "", waitingAtMost sleep: @escaping @Sendable () async throws -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.close(code: code, reason: reason)
                return true
            }
            group.addTask {
                do { try await sleep() } catch { return true }
                return false
            }
            let answered = await group.next() ?? true
            if !answered { abort("the server did not answer the close frame in time") }
            group.cancelAll()
            await group.waitForAll()
            return answered
        }
    }

    /// Drops the connection at once, without a close frame or waiting for
    /// queued messages; ``closed()`` then reports `connectionLost` with `detail`.
    public func abort(_ detail: String) {
        let changed = session.outbound.withLock { state -> Bool in
            guard state.abortRequested == nil else { return false }
            state.abortRequested = detail
            state.messages = []
            return true
        }
        if changed { requestWritable() }
    }

    /// Waits until the connection has ended: the close handshake's details,
    /// or the error that ended it.
    public func closed() async -> Result<CloseInfo, TransportError> {
        await session.core.closed()
    }
}
