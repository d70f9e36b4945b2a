import EntityStreamLocking

/// The hand-off point between one connection's service thread and the task
/// that consumes its messages, with receive back-pressure.
///
/// The service thread calls ``deliver(_:)`` at most once per service turn with
/// everything that turn completed; a waiting consumer is resumed once per
/// hand-off, and a busy consumer finds everything merged into one batch on its
/// next call. When more than `bufferLimit` bytes wait unconsumed, ``deliver(_:)``
/// returns `true` and the service thread pauses reading (`lws_rx_flow_control`);
/// when the consumer drains the buffer, `resumeReading` runs so the service
/// thread can read again. Nothing is ever dropped.
///
/// One consumer: a task cancelled while it waits in ``next()`` is resumed
/// with ``TransportError/cancelled``; a second task waiting while another
/// does is a programming error and stops the program with a message saying
/// so (as `AsyncStream` does) instead of silently replacing the first.
final class InboundChannel: Sendable {
    private struct State {
        var pending = TurnBatch()
        var waiter: CheckedContinuation<Result<MessageBatch?, TransportError>, Never>?
        var ending: Result<Void, TransportError>?
        var paused = false
    }

    private let state = LockedState(State())
    private let bufferLimit: Int
    private let resumeReading: @Sendable () -> Void

    init(bufferLimit: Int, resumeReading: @escaping @Sendable () -> Void) {
        self.bufferLimit = bufferLimit
        self.resumeReading = resumeReading
    }

    /// Service thread: hands over one turn's messages. Returns true when the
    /// caller must pause reading until `resumeReading` is called.
    func deliver(_ batch: inout TurnBatch) -> Bool {
        let (waiter, handed, pause) = state.withLock { state -> (CheckedContinuation<Result<MessageBatch?, TransportError>, Never>?, MessageBatch?, Bool) in
            if state.pending.isEmpty {
                swap(&state.pending, &batch)
            } else {
                let offset = state.pending.bytes.count
                let base = state.pending.ends.count
                state.pending.bytes.append(contentsOf: batch.bytes)
                state.pending.ends.append(contentsOf: batch.ends.lazy.map { $0 + offset })
                for index in batch.binaryIndices { state.pending.binaryIndices.insert(base + index) }
            }
            batch = TurnBatch()
            if let waiter = state.waiter {
                state.waiter = nil
                let taken = state.pending.takeBatch()
                return (waiter, taken, false)
            }
            if state.pending.bytes.count >= bufferLimit && !state.paused {
                state.paused = true
                return (nil, nil, true)
            }
            return (nil, nil, false)
        }
        waiter?.resume(returning: Result<MessageBatch?, TransportError>.success(handed))
        return pause
    }

    /// Service thread (or anyone): no more messages will come. Messages already
    /// delivered are still handed out first; then the consumer sees the end
    /// (`.success`) or the error.
    func finish(_ ending: Result<Void, TransportError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<MessageBatch?, TransportError>, Never>? in
            guard state.ending == nil else { return nil }
            state.ending = ending
            guard state.pending.isEmpty, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: ending.map { nil })
    }

    /// Consumer: the next batch (everything received so far), nil at a normal end.
    func next() async throws(TransportError) -> MessageBatch? {
        let result: Result<MessageBatch?, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (immediate, mustResume) = state.withLock { state -> (Result<MessageBatch?, TransportError>?, Bool) in
                    if !state.pending.isEmpty {
                        let batch = state.pending.takeBatch()
                        let mustResume = state.paused
                        state.paused = false
                        return (.success(batch), mustResume)
                    }
                    if let ending = state.ending { return (ending.map { nil }, false) }
                    if Task.isCancelled { return (.failure(.cancelled), false) }
                    precondition(state.waiter == nil, "WebSocketInbound: two tasks wait for messages at once; a connection's inbound sequence has one consumer")
                    state.waiter = continuation
                    return (nil, false)
                }
                if mustResume { resumeReading() }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }

    /// Bytes received but not yet consumed (for tests and progress).
    var bufferedBytes: Int { state.withLock { $0.pending.bytes.count } }
}

extension TurnBatch {
    /// Moves everything out as a ``MessageBatch``, leaving this batch empty.
    mutating func takeBatch() -> MessageBatch {
        var taken = TurnBatch()
        swap(&taken, &self)
        return MessageBatch(bytes: taken.bytes, ends: taken.ends, binaryIndices: taken.binaryIndices)
    }
}

/// The inbound side of a WebSocket connection: an `AsyncSequence` of
/// ``MessageBatch``es, each carrying every message that arrived since the
/// previous one.
///
/// Iterate it from one task. It ends (returns nil) after the close handshake;
/// it throws ``TransportError`` when the connection failed (message too large,
/// peer unresponsive, connection lost, event loop shut down, task cancelled).
/// Not iterating it applies back-pressure: reading pauses once the buffer is full.
public struct WebSocketInbound: AsyncSequence, Sendable {
    public typealias Element = MessageBatch
    public typealias Failure = TransportError

    let channel: InboundChannel

    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: InboundChannel

        public mutating func next() async throws(TransportError) -> MessageBatch? {
            try await channel.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(TransportError) -> MessageBatch? {
            try await channel.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }
}
