/// One WebSocket client's bounded queue of framed outbound messages.
///
/// The queue holds *segments*: runs of framed messages back to back in one
/// byte buffer. A batch offered to many clients (``FramedTextMessages``)
/// becomes one segment in each client's queue that shares the batch's
/// buffer (an array reference, not a copy): a broadcast's bytes exist once
/// however many clients hold them, and each queue only moves its own
/// position through them. Messages sent one at a time are framed into this
/// queue's own buffers of up to 64 KiB, appended in place. Each client is
/// still charged the bytes it has queued (``queuedBytes``), which its
/// slow-client policy bounds.
///
/// The service thread takes one write at a time (``takeWrite(limit:)``): up
/// to 64 KiB of whole messages from one or more segments, sent with a single
/// `lws_write`. Used under the connection's lock; a value type so its rules
/// can be tested directly.
struct ServerOutboundQueue {
    struct Segment {
        /// Framed messages back to back; `messageEnds.last == bytes.count`.
        /// Shared with other clients' queues when it came from a batch.
        var bytes: [UInt8]
        /// The end offset (into `bytes`) of each message, ascending.
        var messageEnds: [Int]
        /// Index (into `messageEnds`) of the first message not yet taken or dropped.
        var next: Int
        /// The byte offset where that message starts.
        var start: Int
        /// This queue's own buffer, which single messages are appended to in
        /// place (false for a shared batch, and once part of it was taken).
        var appendable: Bool
    }

    /// Part of a write: `bytes[range]`, whole messages.
    struct Piece {
        let bytes: [UInt8]
        let range: Range<Int>
    }

    /// What one `lws_write` sends: whole messages, in order, in one or more pieces.
    struct Write {
        var pieces: [Piece] = []
        var byteCount = 0
        var messageCount = 0

        /// The bytes written, joined (tests; the writer copies into its own buffer).
        var joined: [UInt8] { pieces.flatMap { $0.bytes[$0.range] } }
    }

    /// The most bytes one write takes (a message larger than this goes alone).
    static let chunkCapacity = 64 * 1024

    private(set) var segments: [Segment] = []
    private var head = 0
    private(set) var queuedBytes = 0
    private(set) var droppedMessages = 0
    /// Messages handed to the service thread for writing so far.
    private(set) var sentMessages = 0

    var isEmpty: Bool { head == segments.count }

    /// Frames `payload` (text) and appends it to this queue's own buffer.
    mutating func append(text payload: UnsafeRawBufferPointer, fragmentSize: Int?) {
        let framedSize = payload.count + WebSocketFrameEncoder.headerSize(payloadCount: payload.count) * max(1, fragmentCount(payload.count, fragmentSize))
        let last = segments.count - 1
        if head == segments.count || !segments[last].appendable || segments[last].bytes.count + framedSize > Self.chunkCapacity {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(max(Self.chunkCapacity, framedSize))
            segments.append(Segment(bytes: bytes, messageEnds: [], next: 0, start: 0, appendable: true))
        }
        let index = segments.count - 1
        let before = segments[index].bytes.count
        WebSocketFrameEncoder.appendText(payload, fragmentSize: fragmentSize, to: &segments[index].bytes)
        segments[index].messageEnds.append(segments[index].bytes.count)
        queuedBytes += segments[index].bytes.count - before
    }

    /// Appends every message of `messages` (framed already) by sharing its
    /// buffers: no bytes are copied, whatever the batch's size.
    mutating func append(_ messages: FramedTextMessages) {
        guard !messages.isEmpty else { return }
        segments.append(Segment(bytes: messages.bytes, messageEnds: messages.ends, next: 0, start: 0, appendable: false))
        queuedBytes += messages.byteCount
    }

    private func fragmentCount(_ count: Int, _ fragmentSize: Int?) -> Int {
        guard let fragmentSize, fragmentSize > 0 else { return 1 }
        return (count + fragmentSize - 1) / fragmentSize
    }

    /// The first index in `ends[from...]` whose value is at least `value` (`ends.count` when none).
    private static func firstEnd(in ends: [Int], from: Int, atLeast value: Int) -> Int {
        var low = from, high = ends.count
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Drops the oldest queued messages until at most `limit` bytes remain.
    mutating func dropOldest(toFit limit: Int) {
        while queuedBytes > limit, head < segments.count {
            let segment = segments[head]
            let live = segment.bytes.count - segment.start
            if queuedBytes - live >= limit {
                // The whole segment goes.
                queuedBytes -= live
                droppedMessages += segment.messageEnds.count - segment.next
                removeHead()
                continue
            }
            // The oldest messages whose removal brings the queue down to `limit`.
            let last = Self.firstEnd(in: segment.messageEnds, from: segment.next, atLeast: segment.start + (queuedBytes - limit))
            let end = segment.messageEnds[last]
            queuedBytes -= end - segment.start
            droppedMessages += last + 1 - segment.next
            if last + 1 == segment.messageEnds.count {
                removeHead()
            } else {
                segments[head].next = last + 1
                segments[head].start = end
            }
        }
        compactIfNeeded()
    }

    /// Service thread: takes the oldest messages for one write, up to `limit`
    /// bytes (at least one message, alone when it is larger).
    mutating func takeWrite(limit: Int = Self.chunkCapacity) -> Write? {
        guard head < segments.count else { return nil }
        var write = Write()
        while head < segments.count {
            let segment = segments[head]
            var end = Self.firstEnd(in: segment.messageEnds, from: segment.next, atLeast: segment.start + (limit - write.byteCount) + 1)
            if end == segment.next {
                if write.messageCount > 0 { break }
                end += 1
            }
            let byteEnd = segment.messageEnds[end - 1]
            write.pieces.append(Piece(bytes: segment.bytes, range: segment.start..<byteEnd))
            write.byteCount += byteEnd - segment.start
            write.messageCount += end - segment.next
            if end == segment.messageEnds.count {
                removeHead()
            } else {
                segments[head].next = end
                segments[head].start = byteEnd
                segments[head].appendable = false
                break
            }
        }
        queuedBytes -= write.byteCount
        sentMessages += write.messageCount
        compactIfNeeded()
        return write
    }

    /// Drops every queued message, counting them as dropped.
    mutating func dropAll() {
        dropOldest(toFit: 0)
    }

    /// Drops everything (the connection closed).
    mutating func removeAll() {
        segments = []
        head = 0
        queuedBytes = 0
    }

    private mutating func removeHead() {
        segments[head] = Segment(bytes: [], messageEnds: [], next: 0, start: 0, appendable: false)
        head += 1
    }

    private mutating func compactIfNeeded() {
        if head == segments.count {
            segments.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > segments.count {
            segments.removeFirst(head)
            head = 0
        }
    }
}
