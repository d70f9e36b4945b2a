import Synchronization

/// The words of one ``HistoryChunk``, allocated once at full capacity and
/// only ever appended to, so copies of a chunk (a store and its snapshots)
/// share it: a copy reads only the records it knew of, below its own end,
/// while the store appends past them. That makes a snapshot's cost
/// independent of how much history the store holds.
///
/// Appending claims the next words atomically (``claim(from:count:)``), so
/// of two copies that diverged only the one at the tip appends in place;
/// the other gets its own storage (copy on write, as a value type should).
final class ChunkStorage: @unchecked Sendable {
    let capacity: Int
    let words: UnsafeMutablePointer<UInt64>
    /// Words written so far (the tip).
    private let written = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        words = UnsafeMutablePointer<UInt64>.allocate(capacity: max(capacity, 1))
    }

    deinit { words.deallocate() }

    /// One storage with no room, for emptied chunks.
    static let empty = ChunkStorage(capacity: 0)

    /// Claims `count` words at `offset` when `offset` is the tip and they fit.
    func claim(from offset: Int, count: Int) -> Bool {
        guard offset + count <= capacity else { return false }
        return written.compareExchange(expected: offset, desired: offset + count, ordering: .relaxed).exchanged
    }

    /// A new storage of the same capacity holding the first `count` words.
    func copy(count: Int) -> ChunkStorage {
        let copy = ChunkStorage(capacity: capacity)
        copy.words.update(from: words, count: count)
        copy.written.store(count, ordering: .relaxed)
        return copy
    }
}
