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

    /// The AIS recording published to `server` as stream AIS (8,400
    /// messages), and a durable consumer of it from the start that is never
    /// acknowledged here: nothing is delivered again or held back.
    static func aisConsumer(_ server: NATSServerProcess, durable: String, maximumBatchBytes: Int? = nil) async throws -> (NATSConnection, JetStreamConsumer) {
        let published = try await CommandLineTool.run("entitystream", ["replay", ais, "--track-field", "MMSI", "--events", "observation",
                                                                 "--publish", "\(server.url)/ais", "--create-stream", "AIS"])
        #expect(published.status == 0, "\(published.standardError)")
        let connection = try NATSConnection(address: try NATSAddress(parsing: "\(server.url)/AIS", nameIs: "stream"), name: "fetch test")
        var settings = ConsumerSettings()
        settings.durable = durable
        settings.start = .first
        settings.ackWaitSeconds = 3600
        settings.maximumAckPending = 20_000
        if let maximumBatchBytes { settings.maximumBatchBytes = maximumBatchBytes }
        return (connection, try JetStreamConsumer(connection: connection, stream: "AIS", settings: settings))
    }

    @Test("Fetches that find 2,423 messages of earlier requests waiting, and more arriving, take at most a batch each, every message once, in order",
          .enabled(if: ready))
    func earlierRequestsStillArriving() async throws {
        let server = try NATSServerProcess()
        defer { server.kill(); server.removeStorage() }
        let (connection, consumer) = try await Self.aisConsumer(server, durable: "f")
        defer { connection.close() }
        let settings = consumer.settings
        // Earlier requests (an abandoned fetch's, another process's on the same inbox) bring
        // 2,423 messages before the first fetch asks for its own.
        for batch in [1023, 700, 700] { consumer.sendPullRequest(batch: batch) }
        // And 8400 more (another service's ids) published while the fetches run.
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: CommandLineTool.path("entitystream"))
        publisher.arguments = ["replay", Self.ais, "--track-field", "MMSI", "--events", "observation", "--publish", "\(server.url)/ais",
                               "--publish-service", "other"]
        publisher.standardOutput = FileHandle.nullDevice
        publisher.standardError = FileHandle.nullDevice
        try publisher.run()
        defer { if publisher.isRunning { publisher.terminate() } }
        var sequences: [UInt64] = []
        var empty = 0
        while sequences.count < 16_800 && empty < 3 {
            let fetched = try #require(consumer.fetch(milliseconds: 10_000))
            #expect(fetched.count <= settings.batch, "a fetch of \(settings.batch) took \(fetched.count)")
            sequences += fetched.streamSequences
            empty = fetched.isEmpty ? empty + 1 : 0
        }
        publisher.waitUntilExit()
        #expect(publisher.terminationStatus == 0)
        // Sequence i + 1 at index i: every message once, in order.
        let firstWrong = sequences.indices.first { sequences[$0] != UInt64($0 + 1) }
        #expect(sequences.count == 16_800 && firstWrong == nil,
                "\(sequences.count) messages, \(Set(sequences).count) different; first out of place at \(firstWrong.map(String.init) ?? "-")")
        #expect(consumer.fetch(milliseconds: 200)?.isEmpty == true)
    }

    /// A fetch stops taking messages once they hold `maximumBatchBytes`
    /// (here 32 KiB, about a hundred AIS lines): every batch stays near that
    /// size, and every message still comes once, in order.
    @Test("A fetch holds at most its byte bound (and one message more); every message once, in order", .enabled(if: ready))
    func batchesBoundedByBytes() async throws {
        let server = try NATSServerProcess()
        defer { server.kill(); server.removeStorage() }
        let (connection, consumer) = try await Self.aisConsumer(server, durable: "b", maximumBatchBytes: 32 << 10)
        defer { connection.close() }
        let settings = consumer.settings
        var sequences: [UInt64] = []
        var empty = 0
        var largest = 0
        while sequences.count < 8400 && empty < 3 {
            let fetched = try #require(consumer.fetch(milliseconds: 10_000))
            // The bound, plus the one message that crossed it (an AIS line and its subject: well under 4 KiB).
            #expect(fetched.byteCount < (32 << 10) + 4096, "a fetch held \(fetched.byteCount) bytes in \(fetched.count) messages")
            largest = max(largest, fetched.count)
            sequences += fetched.streamSequences
            empty = fetched.isEmpty ? empty + 1 : 0
        }
        #expect(largest > 1 && largest < settings.batch)
        let firstWrong = sequences.indices.first { sequences[$0] != UInt64($0 + 1) }
        #expect(sequences.count == 8400 && firstWrong == nil, "\(sequences.count) messages; first out of place at \(firstWrong.map(String.init) ?? "-")")
    }
}
