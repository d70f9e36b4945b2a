import EntityStreamLocking
import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

/// A turn's worth of text messages, as the service thread hands them over.
private func turn(_ texts: [String]) -> TurnBatch {
    var batch = TurnBatch()
    for text in texts { Array(text.utf8).withUnsafeBytes { batch.append($0, isBinary: false) } }
    return batch
}

@Suite("Inbound channel", .bounded)
struct InboundChannelTests {
    /// Turns delivered while the consumer is busy are merged into one batch, in order.
    @Test func busyConsumerGetsOneMergedBatch() async throws {
        let channel = InboundChannel(bufferLimit: 1 << 20) {}
        var first = turn(["a", "b"])
        var second = turn(["c"])
        #expect(!channel.deliver(&first))
        #expect(!channel.deliver(&second))
        let batch = try await channel.next()
        #expect(batch.map { $0.indices.map { batch!.text(at: $0) } } == ["a", "b", "c"])
    }

    /// Past the buffer limit the service thread is told to pause, and resumed once the consumer drains.
    @Test func backPressurePausesAndResumes() async throws {
        let resumed = LockedState(0)
        let channel = InboundChannel(bufferLimit: 4) { resumed.withLock { $0 += 1 } }
        var small = turn(["ab"])
        #expect(!channel.deliver(&small))
        var large = turn(["cdef"])
        #expect(channel.deliver(&large), "over the limit: pause reading")
        #expect(channel.bufferedBytes == 6)
        _ = try await channel.next()
        #expect(resumed.withLock { $0 } == 1)
        #expect(channel.bufferedBytes == 0)
    }

    /// What was delivered comes out before the end; an error ends the sequence after it.
    @Test func deliversBeforeTheError() async throws {
        let channel = InboundChannel(bufferLimit: 1 << 20) {}
        var batch = turn(["last"])
        _ = channel.deliver(&batch)
        channel.finish(.failure(.connectionLost(detail: "x")))
        #expect(try await channel.next()?.text(at: 0) == "last")
        await #expect(throws: TransportError.connectionLost(detail: "x")) { _ = try await channel.next() }
    }

    /// A consumer cancelled while it waits is resumed with `cancelled`.
    @Test func cancelledConsumerIsResumed() async {
        let channel = InboundChannel(bufferLimit: 1 << 20) {}
        let consumer = Task { () -> TransportError? in
            do throws(TransportError) { _ = try await channel.next(); return nil } catch { return error }
        }
        consumer.cancel()
        let ending = await consumer.value
        #expect(ending == .cancelled)
    }

    /// Two tasks waiting at once is a programming error that stops the program with a message.
    @Test func secondConsumerStopsLoudly() async {
        await #expect(processExitsWith: .failure) {
            let channel = InboundChannel(bufferLimit: 1 << 20) {}
            let first = Task { _ = try? await channel.next() }
            let second = Task { _ = try? await channel.next() }
            _ = await (first.value, second.value)
        }
    }
}
