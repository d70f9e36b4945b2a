import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Testing

/// The waits every asynchronous test relies on end when their task is
/// cancelled (what a time limit does), returning what arrived: a condition
/// that never holds fails its test instead of hanging, or spinning in, the run.
@Suite("Test waits end on cancellation", .bounded)
struct TestSupportWaitTests {
    private static func event(_ time: Int64) -> StreamEvent {
        StreamEvent(time: time, payload: .error(StreamErrorReport(source: .store, message: "e\(time)", count: 1)))
    }

    @Test func publishedEventsWait() async {
        let published = PublishedEvents()
        published.append([Self.event(1)])
        #expect(await published.wait(for: 1).count == 1)
        let waiting = Task { await published.wait(for: 3) }
        published.append([Self.event(2)])
        waiting.cancel()
        let seen = await waiting.value
        #expect((1...2).contains(seen.count))
        // A wait whose condition holds returns at once after arrivals.
        let holds = Task { await published.wait(for: 3) }
        published.append([Self.event(3)])
        #expect(await holds.value.count == 3)
    }

    @Test func recordingSinkWait() async {
        let sink = RecordingSink()
        await sink.publish(Self.event(1))
        let waiting = Task { await sink.wait { $0.events.count >= 5 } }
        waiting.cancel()
        #expect(await waiting.value.events.count == 1)
        let holds = Task { await sink.wait { $0.events.count >= 2 } }
        await sink.publish(Self.event(2))
        #expect(await holds.value.events.count == 2)
    }
}
