@testable import EntityStream
import EntityStreamTestSupport
import Testing

@Suite("Batch queue rules", .bounded)
struct BatchQueueStateTests {
    typealias State = BatchQueueState<Int, String, String>

    /// Under back-pressure, a batch beyond the byte limit waits; the consumer admits waiting
    /// batches in arrival order as room appears, and never sees them out of order.
    @Test func byteLimitAdmitsInOrder() {
        var state = State(capacity: 1_000, costLimit: 100, policy: .backPressure)
        guard case .queued = state.send([1, 2], cost: 80) else { Issue.record("room for the first batch"); return }
        guard case .queued = state.send([3], cost: 30) else { Issue.record("under the limit still admits"); return }
        guard case .mustWait = state.send([4], cost: 10) else { Issue.record("at the limit the sender waits"); return }
        guard case .stored = state.wait([4], cost: 10, sender: "s4", id: 4) else { Issue.record("stored"); return }
        guard case .mustWait = state.send([5], cost: 1) else { Issue.record("later senders wait behind"); return }
        guard case .stored = state.wait([5], cost: 1, sender: "s5", id: 5) else { Issue.record("stored"); return }
        guard case .batch(let first, let cost, let admitted) = state.next(consumer: "c") else { Issue.record("a batch"); return }
        #expect(first == [1, 2] && cost == 80 && admitted == ["s4", "s5"])
        var order: [Int] = []
        var last = state.next(consumer: "c")
        while case .batch(let batch, _, _) = last {
            order += batch
            last = state.next(consumer: "c")
        }
        #expect(order == [3, 4, 5])
        guard case .stored = last else { Issue.record("an empty queue stores the consumer"); return }
        guard case .concurrentConsumer = state.next(consumer: "other") else { Issue.record("a second consumer is refused"); return }
        guard case .handOff(let consumer, let batch, _) = state.send([6], cost: 1) else { Issue.record("straight to the consumer"); return }
        #expect(consumer == "c" && batch == [6])
    }

    /// Dropping keeps both limits, oldest first, counting exactly what went.
    @Test func dropOldestCountsExactly() {
        var state = State(capacity: 5, costLimit: 1_000, policy: .dropOldest)
        _ = state.send([1, 2, 3], cost: 30)
        _ = state.send([4, 5, 6, 7], cost: 40)
        #expect(state.queuedCount == 5)
        #expect(state.takeDroppedCount() == (2, 2))
        var bytes = State(capacity: 100, costLimit: 50, policy: .dropOldest)
        _ = bytes.send([1, 2, 3, 4], cost: 40)
        _ = bytes.send([5, 6], cost: 20)
        #expect(bytes.queuedCost <= 50)
        #expect(bytes.takeDroppedCount().total == 1)
        guard case .batch(let rest, _, _) = bytes.next(consumer: "c") else { Issue.record("a batch"); return }
        #expect(rest == [2, 3, 4])
    }

    /// A cancelled waiting sender is removed (its batch dropped); finishing resumes every waiter.
    @Test func cancellationAndFinish() {
        var state = State(capacity: 1, policy: .backPressure)
        _ = state.send([1], cost: 0)
        _ = state.wait([2], cost: 0, sender: "s2", id: 2)
        _ = state.wait([3], cost: 0, sender: "s3", id: 3)
        #expect(state.cancelSender(id: 2) == "s2")
        #expect(state.cancelSender(id: 2) == nil)
        let (consumer, senders) = state.finish()
        #expect(consumer == nil && senders == ["s3"])
        guard case .batch([1], _, _) = state.next(consumer: "c") else { Issue.record("what was queued drains"); return }
        guard case .finished = state.next(consumer: "c") else { Issue.record("then the end"); return }
        guard case .finished = state.send([4], cost: 0) else { Issue.record("sends after the end are dropped"); return }
    }
}

@Suite("Batch queue", .bounded)
struct BatchQueueTests {
    /// A producer blocked by back-pressure returns when its task is cancelled (it used to keep
    /// disconnect() waiting); the consumer then sees only what was admitted.
    @Test func cancelledBlockedProducerReturns() async {
        let queue = BatchQueue<Int>(capacity: 1)
        #expect(await queue.send([1]))
        let blocked = Task { await queue.send([2]) }
        blocked.cancel()
        #expect(await blocked.value == false)
        queue.finish()
        var seen: [Int] = []
        while let batch = await queue.next() { seen += batch }
        #expect(seen == [1])
    }

    /// A consumer cancelled while it waits gets nil instead of waiting forever.
    @Test func cancelledConsumerGetsNil() async {
        let queue = BatchQueue<Int>(capacity: 4)
        let consumer = Task { await queue.next() }
        consumer.cancel()
        #expect(await consumer.value == nil)
    }

    /// Several producers: every element arrives once, each producer's own order is kept.
    @Test func severalProducersKeepTheirOrder() async {
        let queue = BatchQueue<(producer: Int, sequence: Int)>(capacity: 50, costLimit: 4_000)
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for start in stride(from: 0, to: 5_000, by: 10) {
                        await queue.send((start..<start + 10).map { (producer, $0) }, cost: 100)
                    }
                }
            }
            group.addTask {
                var next = [0, 0, 0, 0]
                var inOrder = true
                while next.reduce(0, +) < 20_000, let batch = await queue.next() {
                    for element in batch {
                        if element.sequence != next[element.producer] { inOrder = false }
                        next[element.producer] += 1
                    }
                }
                #expect(inOrder)
                #expect(next == [5_000, 5_000, 5_000, 5_000])
            }
        }
    }

    /// Two consumers waiting at once stop the program with a message (never a silent overwrite).
    @Test func secondConsumerStopsLoudly() async {
        await #expect(processExitsWith: .failure) {
            let queue = BatchQueue<Int>(capacity: 4)
            let first = Task { _ = await queue.next() }
            let second = Task { _ = await queue.next() }
            _ = await (first.value, second.value)
        }
    }
}
