import CLibWebSockets

/// One WebSocket client's bounded queue of framed outbound messages.
///
/// Senders append framed messages into chunks of up to 64 KiB (each with
/// `LWS_PRE` bytes of headroom); the service thread takes one whole chunk per
/// WRITEABLE callback and writes it with a single `lws_write`. Used under the
/// connection's lock; a value type so its rules can be tested directly.
struct ServerOutboundQueue {
    struct Chunk {
        /// `LWS_PRE` headroom, then framed messages back to back.
        var bytes: [UInt8]
        /// End offsets (into `bytes`) of each message.
        var messageEnds: [Int]
        /// Offset of the first message not dropped.
        var start: Int
    }

    static let chunkCapacity = 64 * 1024
    static let headroom = Int(es_lws_pre())

    private(set) var chunks: [Chunk] = []
    private var head = 0
    private(set) var queuedBytes = 0
    private(set) var droppedMessages = 0

    var isEmpty: Bool { head == chunks.count }

    /// Frames `payload` (text) and appends it.
    mutating func append(text payload: UnsafeRawBufferPointer, fragmentSize: Int?) {
        let framedSize = payload.count + WebSocketFrameEncoder.headerSize(payloadCount: payload.count) * max(1, fragmentCount(payload.count, fragmentSize))
        if head == chunks.count || chunks[chunks.count - 1].bytes.count + framedSize > Self.chunkCapacity + Self.headroom {
            var bytes = [UInt8](repeating: 0, count: Self.headroom)
            bytes.reserveCapacity(max(Self.chunkCapacity, framedSize) + Self.headroom)
            chunks.append(Chunk(bytes: bytes, messageEnds: [], start: Self.headroom))
        }
        let last = chunks.count - 1
        let before = chunks[last].bytes.count
        WebSocketFrameEncoder.appendText(payload, fragmentSize: fragmentSize, to: &chunks[last].bytes)
        chunks[last].messageEnds.append(chunks[last].bytes.count)
        queuedBytes += chunks[last].bytes.count - before
    }

    private func fragmentCount(_ count: Int, _ fragmentSize: Int?) -> Int {
        guard let fragmentSize, fragmentSize > 0 else { return 1 }
        return (count + fragmentSize - 1) / fragmentSize
    }

    /// Drops the oldest queued messages until at most `limit` bytes remain.
    mutating func dropOldest(toFit limit: Int) {
        while queuedBytes > limit, head < chunks.count {
            var chunk = chunks[head]
            guard let firstEnd = chunk.messageEnds.first(where: { $0 > chunk.start }) else {
                chunks[head] = Chunk(bytes: [], messageEnds: [], start: 0)
                head += 1
                continue
            }
            queuedBytes -= firstEnd - chunk.start
            chunk.start = firstEnd
            droppedMessages += 1
            if firstEnd == chunk.bytes.count {
                chunks[head] = Chunk(bytes: [], messageEnds: [], start: 0)
                head += 1
            } else {
                chunks[head] = chunk
            }
        }
        compactIfNeeded()
    }

    /// Service thread: takes the oldest chunk for writing.
    mutating func takeChunk() -> Chunk? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        chunks[head] = Chunk(bytes: [], messageEnds: [], start: 0)
        head += 1
        queuedBytes -= chunk.bytes.count - chunk.start
        compactIfNeeded()
        return chunk
    }

    /// Drops everything (the connection closed).
    mutating func removeAll() {
        chunks = []
        head = 0
        queuedBytes = 0
    }

    private mutating func compactIfNeeded() {
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }
}
