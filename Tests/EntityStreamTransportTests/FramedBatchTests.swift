import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport
import Foundation

/// The bytes a queue hands to the socket, write after write.
private func drain(_ queue: inout ServerOutboundQueue) -> (bytes: [UInt8], writes: Int) {
    var bytes: [UInt8] = []
    var writes = 0
    while let write = queue.takeWrite() {
        bytes += write.joined
        writes += 1
    }
    return (bytes, writes)
}

/// Where `array`'s elements are in memory.
private func address(_ array: [UInt8]) -> UnsafeRawPointer? {
    array.withUnsafeBytes { $0.baseAddress }
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
    /// in order, in writes of at most 64 KiB, each cut at a message boundary.
    @Test func batchIsFramedAndWrittenAtMessageBoundaries() throws {
        let sizes = [0, 1, 125, 126, 4000, 65_535, 65_536, 70_000] + Array(repeating: 300, count: 500)
        let payloads = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: index &+ $0 % 251) } }
        var messages = FramedTextMessages()
        for payload in payloads { messages.append(payload) }
        var queue = ServerOutboundQueue()
        queue.append(messages)
        let expected = payloads.flatMap(frame)
        let boundaries = Set(payloads.map { frame($0).count }.reduce(into: [0]) { $0.append($0.last! + $1) })
        #expect(queue.queuedBytes == expected.count)
        var writeCount = 0
        var written: [UInt8] = []
        while let write = queue.takeWrite() {
            writeCount += 1
            let body = write.joined
            #expect(body.count == write.byteCount)
            #expect(body.count <= ServerOutboundQueue.chunkCapacity || write.messageCount == 1, "only a message larger than a write goes alone")
            written += body
            #expect(boundaries.contains(written.count), "a write ends at a message's end")
        }
        #expect(written == expected)
        #expect(writeCount >= expected.count / ServerOutboundQueue.chunkCapacity)
        #expect(queue.sentMessages == payloads.count)
        #expect(queue.queuedBytes == 0)
    }

    /// A batch queued to many clients is held once: every queue shares the batch's bytes (the same
    /// memory, not a copy), is charged its size, and writes it in full; a client that has sent it does
    /// not change what another still holds.
    @Test func batchIsSharedByEveryQueue() throws {
        var batch = FramedTextMessages()
        for index in 0..<400 { batch.append(Array("{\"seq\":\(index),\"pad\":\"\(String(repeating: "y", count: index % 50))\"}".utf8)) }
        let shared = batch.compacted()
        #expect(shared.bytes == batch.bytes && shared.ends == batch.ends)
        var queues = Array(repeating: ServerOutboundQueue(), count: 100)
        for index in queues.indices { queues[index].append(shared) }
        for queue in queues {
            #expect(queue.queuedBytes == shared.byteCount)
            let held = try #require(queue.segments.last)
            #expect(address(held.bytes) == address(shared.bytes), "the queue holds the batch's own bytes")
        }
        let first = drain(&queues[0]).bytes
        #expect(first == shared.bytes)
        #expect(address(try #require(queues[99].segments.last).bytes) == address(shared.bytes))
        #expect(drain(&queues[99]).bytes == shared.bytes)
    }

    /// One write gathers the oldest messages of batches and single sends, in order, up to the write's
    /// limit and never past a message; what comes after goes out in the next writes.
    @Test func writesGatherAcrossBatchesAndSingleSends() throws {
        func batch(_ range: Range<Int>) -> FramedTextMessages {
            var messages = FramedTextMessages()
            for index in range { messages.append(Array("b\(index)".utf8)) }
            return messages.compacted()
        }
        func single(_ text: String, _ queue: inout ServerOutboundQueue) {
            Array(text.utf8).withUnsafeBytes { queue.append(text: $0, fragmentSize: nil) }
        }
        var queue = ServerOutboundQueue()
        queue.append(batch(0..<3))
        for index in 0..<5 { single("t\(index)", &queue) }
        queue.append(batch(3..<10))
        single("u0", &queue)
        let texts = (0..<3).map { "b\($0)" } + (0..<5).map { "t\($0)" } + (3..<10).map { "b\($0)" } + ["u0"]
        #expect(queue.queuedBytes == texts.count * 4)
        // Every frame here is 4 bytes: a limit of 22 takes 5 whole messages (the batch's 3, 2 single sends).
        let write = queue.takeWrite(limit: 22)
        let taken = try #require(write)
        #expect(taken.pieces.count == 2)
        #expect(taken.messageCount == 5 && taken.byteCount == 20)
        #expect(taken.joined == texts.prefix(5).flatMap { frame(Array($0.utf8)) })
        single("late", &queue)
        let rest = drain(&queue)
        #expect(rest.bytes == (texts.dropFirst(5) + ["late"]).flatMap { frame(Array($0.utf8)) })
        #expect(rest.writes == 1)
        #expect(queue.sentMessages == texts.count + 1)
        #expect(queue.queuedBytes == 0 && queue.isEmpty)
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
