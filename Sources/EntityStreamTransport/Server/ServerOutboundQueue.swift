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
    /// Messages handed to the service thread for writing so far.
    private(set) var sentMessages = 0

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

    /// Appends every message of `messages` (framed already), filling the
    /// last chunk and starting new ones at message boundaries: one copy per
    /// run of messages that fits a chunk.
    mutating func append(_ messages: FramedTextMessages) {
        let ends = messages.ends
        guard !ends.isEmpty else { return }
        messages.bytes.withUnsafeBytes { all in
            var index = 0
            var start = 0
            while index < ends.count {
                let capacity = Self.chunkCapacity + Self.headroom
                if head == chunks.count || chunks[chunks.count - 1].bytes.count >= capacity {
                    var bytes = [UInt8](repeating: 0, count: Self.headroom)
                    bytes.reserveCapacity(max(capacity, ends[index] - start + Self.headroom))
                    chunks.append(Chunk(bytes: bytes, messageEnds: [], start: Self.headroom))
                }
                let last = chunks.count - 1
                let room = capacity - chunks[last].bytes.count
                var end = index
                while end < ends.count && ends[end] - start <= room { end += 1 }
                if end == index {
                    // The next message does not fit: a chunk of its own (alone when larger than a chunk).
                    if !chunks[last].messageEnds.isEmpty {
                        var bytes = [UInt8](repeating: 0, count: Self.headroom)
                        bytes.reserveCapacity(max(capacity, ends[index] - start + Self.headroom))
                        chunks.append(Chunk(bytes: bytes, messageEnds: [], start: Self.headroom))
                        continue
                    }
                    end = index + 1
                }
                let target = chunks.count - 1
                let base = chunks[target].bytes.count - start
                let byteEnd = ends[end - 1]
                chunks[target].bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: all[start..<byteEnd]))
                for position in index..<end { chunks[target].messageEnds.append(base + ends[position]) }
                queuedBytes += byteEnd - start
                start = byteEnd
                index = end
            }
        }
    }

    private func fragmentCount(_ count: Int, _ fragmentSize: Int?) -> Int {
        guard let fragmentSize, fragmentSize > 0 else { return 1 }
        return (count + fragmentSize - 1) / fragmentSize
    }

    /// Drops the oldest queued messages until at most `limit` bytes remain.
    mutating func dropOldest(toFit limit: Int) {
        while queuedBytes > limit, head < chunks.count {
            var chunk = chunks[head]
            let live = chunk.bytes.count - chunk.start
            var next = chunk.messageEnds.firstIndex { $0 > chunk.start } ?? chunk.messageEnds.count
            if queuedBytes - live >= limit || next == chunk.messageEnds.count {
                // The whole chunk goes.
                queuedBytes -= live
                droppedMessages += chunk.messageEnds.count - next
                chunks[head] = Chunk(bytes: [], messageEnds: [], start: 0)
                head += 1
                continue
            }
            while queuedBytes > limit, next < chunk.messageEnds.count {
                queuedBytes -= chunk.messageEnds[next] - chunk.start
                chunk.start = chunk.messageEnds[next]
                droppedMessages += 1
                next += 1
            }
            if chunk.start == chunk.bytes.count {
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
        sentMessages += chunk.messageEnds.count - (chunk.messageEnds.firstIndex { $0 > chunk.start } ?? chunk.messageEnds.count)
        compactIfNeeded()
        return chunk
    }

    /// Drops every queued message, counting them as dropped.
    mutating func dropAll() {
        dropOldest(toFit: 0)
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
