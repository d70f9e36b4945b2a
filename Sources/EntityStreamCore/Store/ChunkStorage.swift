import Synchronization

/// The words of one ``HistoryChunk``, only ever appended to while shared,
/// so copies of a chunk (a store and its snapshots) share it: a copy reads
/// only the records it knew of, below its own end, while the store appends
/// past them. That makes a snapshot's cost independent of how much history
/// the store holds.
///
/// A storage starts small and is replaced by a larger one as its chunk
/// grows (``HistoryChunk``), so a track of one observation holds one record's
/// words, not a whole chunk's. Appending claims the next words atomically
/// (``claim(from:count:)``), so of two copies that diverged only the one at
/// the tip appends in place; the other gets its own storage (copy on write,
/// as a value type should). A chunk whose storage no copy shares may also
/// move its live records to the front (``moveToFront(from:count:)``).
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

    /// A new storage of `capacity` words (at least `count`) holding the
    /// `count` words that start at `offset` here, at its front.
    func copy(from offset: Int = 0, count: Int, capacity: Int) -> ChunkStorage {
        let copy = ChunkStorage(capacity: max(capacity, count))
        copy.words.update(from: words + offset, count: count)
        copy.written.store(count, ordering: .relaxed)
        return copy
    }

    /// Moves the `count` words at `offset` to the front, making them the
    /// only ones written. Only for a storage no other chunk copy reads.
    func moveToFront(from offset: Int, count: Int) {
        if offset > 0 && count > 0 {
            // memmove: the two ranges may overlap.
            UnsafeMutableRawPointer(words).copyMemory(from: words + offset, byteCount: count * MemoryLayout<UInt64>.stride)
        }
        written.store(count, ordering: .relaxed)
    }
}
