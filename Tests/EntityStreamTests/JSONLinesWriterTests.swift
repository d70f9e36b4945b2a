import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

@Suite("JSON lines writer", .bounded)
struct JSONLinesWriterTests {
    private static func observations(_ range: Range<Int>) -> [StreamEvent] {
        range.map { index in
            let observation = Observation(geometry: Point(x: Double(index), y: 1, wkid: 4326), attributes: [.string("A")], receivedAt: Int64(index))
            let reference = EntityReference(entityID: 1, trackID: .string("A"))
            return StreamEvent(time: Int64(index), payload: .store(.observation(reference, observationID: Int64(index + 1), observation)))
        }
    }

    /// Writes `events` to a temporary file through a writer with `limit`; the writer's ending and the lines written.
    private static func write(limit: Int, then later: [StreamEvent], subscriber: Subscriber) async throws -> (JSONLinesWriter.Ending, [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString).jsonl").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor); unlink(path) }
        let writer = JSONLinesWriter(subscriber: subscriber, schema: SchemaBox(), format: .esri, fileDescriptor: descriptor, observationLimit: limit)
        let ending = await writer.run()
        // More than the queue holds: a writer that stopped reading must not hold this back.
        await subscriber.deliver(later)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (ending, text.split(separator: "\n").map(String.init))
    }

    /// At its observation limit the writer stops after exactly that many observation lines and ends the
    /// subscription: later deliveries beyond the queue's capacity return (dropped) instead of waiting for ever.
    @Test func limitEndsTheSubscription() async throws {
        let subscriber = Subscriber(name: "stdout", capacity: 64)
        await subscriber.deliver(Self.observations(0..<40))
        let (ending, lines) = try await Self.write(limit: 25, then: Self.observations(40..<1_000), subscriber: subscriber)
        #expect(ending == .limitReached)
        #expect(lines.count == 25)
        #expect(lines.last?.contains("\"observation\":25") == true)
        // Ended: the writer took the queued batch whole, and nothing delivered after the limit was kept.
        var drained = 0
        while let batch = await subscriber.next() { drained += batch.count }
        #expect(drained == 0)
    }

    /// A writer whose subscription simply ends writes everything and leaves nothing to end.
    @Test func finishedSubscriptionWritesEverything() async throws {
        let subscriber = Subscriber(name: "stdout")
        await subscriber.deliver(Self.observations(0..<30))
        subscriber.finish()
        let (ending, lines) = try await Self.write(limit: 1_000, then: [], subscriber: subscriber)
        #expect(ending == .finished)
        #expect(lines.count == 30)
    }
}
