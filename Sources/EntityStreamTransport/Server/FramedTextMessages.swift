/// Text messages framed once as a server sends them (unmasked frames, RFC
/// 6455 §5.2), ready to be queued to any number of clients with
/// ``ServerWebSocket/trySend(_:)``: a broadcast serializes and frames each
/// message once, and every client's queue holds the same bytes (it shares
/// the buffers, under one lock, without copying them) until it has sent or
/// dropped them. A value type; reuse one with ``removeAll()`` and hand
/// queues a ``compacted()`` copy, so that what they hold is no larger than
/// the messages.
public struct FramedTextMessages: Sendable {
    /// The frames, back to back.
    public private(set) var bytes: [UInt8] = []
    /// The end offset (in ``bytes``) of each message's frame.
    public private(set) var ends: [Int] = []

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Messages held.
    public var count: Int { ends.count }
    public var isEmpty: Bool { ends.isEmpty }
    /// Framed bytes held (what a client's queue is charged).
    public var byteCount: Int { bytes.count }

    /// Frames `payload` (UTF-8 text, not validated) as one message.
    public mutating func append(_ payload: UnsafeRawBufferPointer) {
        WebSocketFrameEncoder.appendText(payload, fragmentSize: nil, to: &bytes)
        ends.append(bytes.count)
    }

    /// Frames `payload` (UTF-8 text, not validated) as one message.
    public mutating func append(_ payload: [UInt8]) {
        payload.withUnsafeBytes { append($0) }
    }

    /// A copy whose buffers are exactly as large as its messages.
    public func compacted() -> FramedTextMessages {
        var copy = FramedTextMessages()
        copy.bytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
        copy.ends = [Int](unsafeUninitializedCapacity: ends.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: ends)
        }
        return copy
    }

    /// Forgets every message, keeping the buffers' capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}

/// What ``ServerWebSocket/trySend(_:)`` did with a batch.
public enum FramedSendOutcome: Sendable, Hashable {
    /// Every message was queued (under ``SlowClientPolicy/dropOldest``, older
    /// queued messages may have been dropped to make room: see
    /// ``ServerWebSocket/droppedMessageCount``).
    case queued
    /// Nothing was queued: the client's queue is full and the policy is
    /// ``SlowClientPolicy/waitForSpace`` (the caller decides what to do).
    case full
    /// Nothing was queued: the client was too slow under
    /// ``SlowClientPolicy/disconnect`` and is being closed now (1008).
    case disconnected
    /// Nothing was queued: the connection is closing or closed.
    case closed
}
