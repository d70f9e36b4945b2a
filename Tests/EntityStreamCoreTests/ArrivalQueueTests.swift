@testable import EntityStreamCore
import EntityStreamTestSupport
import Testing

/// 3,000 entries: ids 1…3,000, a third (every third id) in slot 0, the rest in slot 1.
private func queueOfTwoTracks() -> ArrivalQueue {
    var queue = ArrivalQueue()
    for id in 1...3_000 { queue.append(slot: id % 3 == 0 ? 0 : 1, id: Int64(id)) }
    return queue
}

@Suite("Arrival queue", .bounded)
struct ArrivalQueueTests {
    /// Entries that go stale together (a deleted track) are noted at once:
    /// the queue asks for a compaction only when stale entries outnumber
    /// live ones, and the compaction leaves the live ones in arrival order
    /// with nothing counted stale.
    @Test func entriesGoingStaleTogetherCompactOnce() {
        var few = queueOfTwoTracks()
        let compactForAThird = few.noteStale(count: 1_000)   // slot 0 deleted
        #expect(!compactForAThird)
        #expect(few.staleCount == 1_000)

        var many = queueOfTwoTracks()
        let compactForTwoThirds = many.noteStale(count: 2_000)   // slot 1 deleted
        #expect(compactForTwoThirds)
        many.compact { slot, _ in slot == 0 }
        #expect(many.staleCount == 0)
        #expect(many.storedCount == 1_000)
        #expect(many.front?.id == 3)
        let compactAgain = many.noteStale(count: 1)
        #expect(!compactAgain)
        #expect(many.staleCount == 1, "nothing over-counted after the compaction")
    }
}
