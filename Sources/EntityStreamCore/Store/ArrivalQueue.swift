import EntityStreamModel

/// Every stored observation in arrival order, as (track slot, observation
/// id) packed into one word, so the globally oldest observation is found in
/// O(1) for the total and age limits.
///
/// Observations purged by the per-track limit or deleted with their track
/// are not removed here at once (that would be O(n)); their entries go
/// stale and are skipped when they reach the front, and the queue compacts
/// itself when stale entries outnumber live ones.
struct ArrivalQueue {
    private static let idBits: UInt64 = 40
    private static let idMask: UInt64 = (1 << idBits) - 1

    private var entries: [UInt64] = []
    private var head = 0
    private(set) var staleCount = 0

    var storedCount: Int { entries.count - head }
    /// Entries allocated (memory diagnostics).
    var capacity: Int { entries.capacity }

    mutating func append(slot: Int, id: Int64) {
        entries.append(UInt64(slot) << Self.idBits | (UInt64(bitPattern: id) & Self.idMask))
    }

    /// The front entry, stale or not.
    var front: (slot: Int, id: Int64)? {
        guard head < entries.count else { return nil }
        return Self.unpack(entries[head])
    }

    mutating func popFront() {
        head += 1
        entries.releaseConsumed(head: &head)
    }

    /// Notes that `count` entries went stale; true when more than half are
    /// and the caller should ``compact(keeping:)`` (once, after noting all
    /// the entries that went stale together).
    mutating func noteStale(count: Int = 1) -> Bool {
        staleCount += count
        return staleCount > 1024 && staleCount * 2 > storedCount
    }

    /// Keeps only the entries `isLive` accepts.
    mutating func compact(keeping isLive: (_ slot: Int, _ id: Int64) -> Bool) {
        var kept: [UInt64] = []
        kept.reserveCapacity(storedCount - staleCount + 1024)
        for entry in entries[head...] {
            let (slot, id) = Self.unpack(entry)
            if isLive(slot, id) { kept.append(entry) }
        }
        entries = kept
        head = 0
        staleCount = 0
    }

    /// Notes that a stale entry was popped from the front.
    mutating func staleEntryPopped() { staleCount = max(0, staleCount - 1) }

    mutating func removeAll() {
        entries = []
        head = 0
        staleCount = 0
    }

    private static func unpack(_ entry: UInt64) -> (slot: Int, id: Int64) {
        (Int(entry >> idBits), Int64(bitPattern: entry & idMask))
    }

    /// The id as stored (ids beyond 40 bits wrap; compare with ``truncated(_:)``).
    static func truncated(_ id: Int64) -> Int64 { Int64(bitPattern: UInt64(bitPattern: id) & idMask) }
}
