import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

/// The bytes a queue hands to the socket, chunk after chunk.
private func drain(_ queue: inout ServerOutboundQueue) -> (bytes: [UInt8], chunks: Int) {
    var bytes: [UInt8] = []
    var chunks = 0
    while let chunk = queue.takeChunk() {
        bytes += chunk.bytes[chunk.start...]
        chunks += 1
    }
    return (bytes, chunks)
}

/// Frames `payload` as RFC 6455 §5.2 says, written out here: FIN + text, the length in 7, 16 or 64 bits, no mask.
private func frame(_ payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x81]
    if payload.count < 126 {
        bytes.append(UInt8(payload.count))
    } else if payload.count < 65_536 {
        bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        bytes.append(127)
        bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
    }
    return bytes + payload
}

@Suite("Framed batches: one serialization for many clients' queues", .bounded)
struct FramedBatchTests {
    /// Messages of every frame-length form, queued as one batch, come out framed exactly as RFC 6455 says,
    /// in order, across as many 64 KiB chunks as they need, each chunk cut at a message boundary.
    @Test func batchIsFramedAndChunkedAtMessageBoundaries() throws {
        let sizes = [0, 1, 125, 126, 4000, 65_535, 65_536, 70_000] + Array(repeating: 300, count: 500)
        let payloads = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: index &+ $0 % 251) } }
        var messages = FramedTextMessages()
        for payload in payloads { messages.append(payload) }
        var queue = ServerOutboundQueue()
        queue.append(messages)
        let expected = payloads.flatMap(frame)
        #expect(queue.queuedBytes == expected.count)
        var chunkCount = 0
        var written: [UInt8] = []
        while let chunk = queue.takeChunk() {
            chunkCount += 1
            let body = Array(chunk.bytes[chunk.start...])
            #expect(chunk.messageEnds.last == chunk.bytes.count, "a chunk ends at a message's end")
            #expect(body.count <= ServerOutboundQueue.chunkCapacity || chunk.messageEnds.count == 1, "only a message larger than a chunk has one to itself")
            written += body
        }
        #expect(written == expected)
        #expect(chunkCount >= expected.count / ServerOutboundQueue.chunkCapacity)
        #expect(queue.sentMessages == payloads.count)
    }

    /// Appending a batch gives the same bytes as appending its messages one by one.
    @Test func batchEqualsMessagesOneByOne() {
        let texts = (0..<3000).map { "{\"seq\":\($0),\"pad\":\"\(String(repeating: "x", count: $0 % 97))\"}" }
        var batch = FramedTextMessages()
        for text in texts { batch.append(Array(text.utf8)) }
        var together = ServerOutboundQueue()
        together.append(batch)
        var single = ServerOutboundQueue()
        for text in texts { Array(text.utf8).withUnsafeBytes { single.append(text: $0, fragmentSize: nil) } }
        #expect(drain(&together).bytes == drain(&single).bytes)
    }

    /// Dropping the oldest to fit removes whole messages from the front (whole chunks at once when they
    /// can go), counts each message dropped, and keeps the newest intact.
    @Test func dropOldestCountsWholeMessages() {
        var batch = FramedTextMessages()
        for index in 0..<2000 { batch.append(Array("m\(String(format: "%05d", index))".utf8)) }
        var queue = ServerOutboundQueue()
        queue.append(batch)
        let each = 2 + 6
        #expect(queue.queuedBytes == 2000 * each)
        queue.dropOldest(toFit: 300 * each)
        #expect(queue.droppedMessages == 1700)
        #expect(queue.queuedBytes == 300 * each)
        let (bytes, _) = drain(&queue)
        let kept = stride(from: 0, to: bytes.count, by: each).map { String(decoding: bytes[($0 + 2)..<($0 + each)], as: UTF8.self) }
        #expect(kept == (1700..<2000).map { "m\(String(format: "%05d", $0))" })
        #expect(queue.sentMessages == 300)
        var empty = ServerOutboundQueue()
        empty.append(batch)
        empty.dropAll()
        #expect(empty.droppedMessages == 2000 && empty.isEmpty && empty.queuedBytes == 0)
    }
}
