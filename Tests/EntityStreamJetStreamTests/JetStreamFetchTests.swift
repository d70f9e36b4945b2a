import EntityStream
import EntityStreamTestSupport
import Foundation
@testable import EntityStreamJetStream
import Testing

/// The fetch that corrupted `consume`'s heap: libnats 3.4.1's
/// `natsSubscription_Fetch`, started with more than half a batch of an
/// earlier pull request already waiting, asked the server for the rest,
/// then kept taking messages past its array of `batch` pointers while
/// another request's messages arrived (a batch of 1024 came back as 1724,
/// `malloc_consolidate(): invalid chunk size` later). The consumer now sends
/// its own requests and takes what arrives into a growable array, at most a
/// batch per fetch, each message once.
@Suite("JetStream fetch: messages of earlier pull requests still arriving", .bounded(.io))
struct JetStreamFetchTests {
    static let ais = SharedData.path(SharedData.ais)
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }

    /// A durable consumer of `stream` on `server` from the start that is never acknowledged
    /// here: nothing is delivered again or held back.
    static func consumer(_ server: NATSServerProcess, stream: String, durable: String, batch: Int? = nil,
                         maximumBatchBytes: Int? = nil) throws -> (NATSConnection, JetStreamConsumer) {
        let connection = try NATSConnection(address: try NATSAddress(parsing: "\(server.url)/\(stream)", nameIs: "stream"), name: "fetch test")
        var settings = ConsumerSettings()
        settings.durable = durable
        settings.start = .first
        settings.ackWaitSeconds = 3600
        settings.maximumAckPending = 20_000
        if let maximumBatchBytes { settings.maximumBatchBytes = maximumBatchBytes }
        if let batch { settings.batch = batch }
        return (connection, try JetStreamConsumer(connection: connection, stream: stream, settings: settings))
    }

    /// What fetches took: the messages' stream sequences, the most messages and bytes one
    /// fetch held, and whether the subscription closed.
    struct Fetches: Sendable {
        var sequences: [UInt64] = []
        var largest = 0
        var heaviest = 0
        var closed = false
    }

    /// Fetches until `count` messages came, three fetches came back empty or the subscription
    /// closed; on `thread`, since fetches block.
    static func fetch(_ count: Int, from consumer: JetStreamConsumer, on thread: BlockingIOThread) async -> Fetches {
        await thread.run {
            var fetches = Fetches()
            var empty = 0
            while fetches.sequences.count < count && empty < 3 {
                guard let fetched = consumer.fetch(milliseconds: 10_000) else {
                    fetches.closed = true
                    break
                }
                fetches.largest = max(fetches.largest, fetched.count)
                fetches.heaviest = max(fetches.heaviest, fetched.byteCount)
                fetches.sequences += fetched.streamSequences
                empty = fetched.isEmpty ? empty + 1 : 0
            }
            return fetches
        }
    }

    /// The recording's first `count` lines, in a file of the test's own; `change` edits them.
    static func recording(_ count: Int, _ change: (inout [String]) -> Void = { _ in }) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-fetch-\(UUID().uuidString).json").path
        var lines = try String(contentsOfFile: ais, encoding: .utf8).split(separator: "\n").prefix(count).map(String.init)
        change(&lines)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// 3,000 messages stored, 3,000 more arriving (the counts are not what is tested: more than the
    /// 2,423 the earlier requests take, and messages arriving while the fetches run).
    @Test("Fetches that find 2,423 messages of earlier requests waiting, and more arriving, take at most a batch each, every message once, in order",
          .enabled(if: ready))
    func earlierRequestsStillArriving() async throws {
        // A stream of this test's own (AISF, subjects aisf.>) on the shared server: it grows while the fetches run.
        let server = try await SharedAISStream.server()
        let file = try Self.recording(3000)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let published = try await CommandLineTool.run("entitystream", ["replay", file, "--track-field", "MMSI", "--events", "observation",
                                                                 "--publish", "\(server.url)/aisf", "--create-stream", "AISF"])
        #expect(published.status == 0 && published.standardError.contains("3000 stored"), "\(published.standardError)")
        let (connection, consumer) = try Self.consumer(server, stream: "AISF", durable: "f")
        defer { connection.close() }
        let batch = consumer.settings.batch
        // Earlier requests (an abandoned fetch's, another process's on the same inbox) bring
        // 2,423 messages before the first fetch asks for its own.
        for batch in [1023, 700, 700] { consumer.sendPullRequest(batch: batch) }
        // And 3,000 more (another service's ids) published while the fetches run.
        let publisher = try ChildProcess(CommandLineTool.path("entitystream"), [
            "replay", file, "--track-field", "MMSI", "--events", "observation", "--publish", "\(server.url)/aisf", "--publish-service", "other"],
            input: .null, output: .null, error: .null)
        // The fetches block: on a thread of their own, not the cooperative pool.
        let thread = BlockingIOThread(name: "test-fetch")
        defer { thread.shutdown() }
        let fetches = await Self.fetch(6000, from: consumer, on: thread)
        let sequences = fetches.sequences
        #expect(!fetches.closed)
        #expect(fetches.largest <= batch, "a fetch of \(batch) took \(fetches.largest)")
        #expect(await thread.run { publisher.wait() } == 0)
        // Sequence i + 1 at index i: every message once, in order.
        let firstWrong = sequences.indices.first { sequences[$0] != UInt64($0 + 1) }
        #expect(sequences.count == 6000 && firstWrong == nil,
                "\(sequences.count) messages, \(Set(sequences).count) different; first out of place at \(firstWrong.map(String.init) ?? "-")")
        #expect(await thread.run { consumer.fetch(milliseconds: 200)?.isEmpty } == true)
    }

    /// A fetch stops taking messages once they hold `maximumBatchBytes`
    /// (here 32 KiB, about a hundred AIS lines): every batch stays near that
    /// size, and every message still comes once, in order.
    @Test("A fetch holds at most its byte bound (and one message more); every message once, in order", .enabled(if: ready))
    func batchesBoundedByBytes() async throws {
        let shared = try await SharedAISStream.get()
        #expect(shared.published.status == 0, "\(shared.published.standardError)")
        let (connection, consumer) = try Self.consumer(shared.server, stream: "AIS", durable: "fetch-b", maximumBatchBytes: 32 << 10)
        defer { connection.close() }
        let settings = consumer.settings
        // The fetches block: on a thread of their own, not the cooperative pool.
        let thread = BlockingIOThread(name: "test-fetch")
        defer { thread.shutdown() }
        let fetches = await Self.fetch(8400, from: consumer, on: thread)
        let sequences = fetches.sequences
        // The bound, plus the one message that crossed it (an AIS line and its subject: well under 4 KiB).
        #expect(fetches.heaviest < (32 << 10) + 4096, "a fetch held \(fetches.heaviest) bytes")
        #expect(fetches.largest > 1 && fetches.largest < settings.batch)
        let firstWrong = sequences.indices.first { sequences[$0] != UInt64($0 + 1) }
        #expect(sequences.count == 8400 && firstWrong == nil, "\(sequences.count) messages; first out of place at \(firstWrong.map(String.init) ?? "-")")
    }
}

/// Memory bounded by bytes on both sides of a small server (`max_payload` 4 KiB): a consumer's pull
/// requests carry `max_bytes`, and a publisher refuses a message larger than the server takes.
@Suite("JetStream byte bounds: pull requests' max_bytes, messages larger than the server takes", .bounded(.io))
struct JetStreamByteBoundTests {
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }

    /// Two requests of 200 messages, 16 KiB each: the server sends what fits in the bytes
    /// (an AIS message counts about 430 with its subjects and headers), ends each with a 409,
    /// and the client never holds more than the two requests' bytes (without `max_bytes`, all
    /// 400 messages, over 90 KB, would come). Fetches then read the rest, once each, in order.
    @Test("A consumer's open pull requests bring at most their max_bytes; the fetches after them read every message once, in order",
          .enabled(if: ready))
    func pullRequestsBoundedByBytes() async throws {
        let server = try await NATSServerProcess(settings: ["max_payload: 4096"])
        defer { server.kill(); server.removeStorage() }
        let file = try JetStreamFetchTests.recording(600)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let published = try await CommandLineTool.run("entitystream", ["replay", file, "--track-field", "MMSI", "--events", "observation",
                                                                 "--publish", "\(server.url)/ais", "--create-stream", "AIS"])
        #expect(published.status == 0 && published.standardError.contains("600 stored"), "\(published.standardError)")
        let (connection, consumer) = try JetStreamFetchTests.consumer(server, stream: "AIS", durable: "bytes", batch: 200,
                                                                      maximumBatchBytes: 16 << 10)
        defer { connection.close() }
        #expect(connection.maximumPayload == 4096)
        // A request never asks for fewer bytes than the largest message takes.
        var small = ConsumerSettings()
        small.maximumBatchBytes = 1024
        #expect(JetStreamConsumer.requestBytes(small, maximumPayload: 4096) == 4096 + 8192)

        let thread = BlockingIOThread(name: "test-fetch")
        defer { thread.shutdown() }
        let delivered = await thread.run { consumer.deliveredByOpenRequests() }
        #expect(delivered.messages > 0 && delivered.messages < 2 * 200, "\(delivered)")
        #expect(delivered.bytes <= 2 * (16 << 10), "\(delivered)")
        // The rest (those are held unacknowledged for the hour's acknowledgement wait).
        let fetches = await JetStreamFetchTests.fetch(600 - delivered.messages, from: consumer, on: thread)
        #expect(fetches.sequences == Array(UInt64(delivered.messages + 1)...600))
    }

    /// Before, the client's NATS_MAX_PAYLOAD counted as a lost connection and the message was
    /// sent again for ever.
    @Test("A line larger than the server takes is refused, named and counted; the others are stored", .enabled(if: ready))
    func oversizeMessageRefused() async throws {
        let server = try await NATSServerProcess(settings: ["max_payload: 4096"])
        defer { server.kill(); server.removeStorage() }
        let file = try JetStreamFetchTests.recording(20) { lines in
            lines[10] = lines[10].replacingOccurrences(of: "\"CallSign\":\"", with: "\"CallSign\":\"" + String(repeating: "W", count: 5000))
        }
        defer { try? FileManager.default.removeItem(atPath: file) }
        let published = try await CommandLineTool.run("entitystream", ["replay", file, "--track-field", "MMSI", "--events", "observation",
                                                                 "--publish", "\(server.url)/ais", "--create-stream", "AIS"])
        #expect(published.status == 1, "\(published.standardError)")
        #expect(published.standardError.contains("is larger than the server takes (max_payload 4096 bytes)"), "\(published.standardError)")
        #expect(published.standardError.contains("19 stored, 0 duplicates, 0 sent again, 1 rejected"), "\(published.standardError)")
        let stored = try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/AIS", "--from-start", "--events", "observation",
                                                              "--until-caught-up"])
        #expect(observationLines(stored.standardOutput).count == 19, "\(stored.standardError)")
        #expect(!stored.standardOutput.contains("WWWW"))
    }
}
