/// A least-recently-used cache of decoded blocks (tiles or strips), bounded
/// by bytes.
///
/// All blocks of one image have the same size, so the cache is a pool of
/// `capacity = max(1, byteLimit / blockByteCount)` equal slots, allocated
/// only as they are first needed: it never holds more than
/// `max(byteLimit, blockByteCount)` bytes of block data. A lookup is an array
/// read (a dictionary for images of more than 2^22 blocks) plus an O(1)
/// move to the front of the recency list.
///
/// Not thread-safe: owned by one raster and used from one thread at a time.
/// The bookkeeping lives in manually allocated buffers (not Swift arrays or
/// class `var`s) so a lookup pays no copy-on-write or dynamic exclusivity
/// checks; every index is checked against the sizes allocated in `init`.
final class BlockCache {
    let blockByteCount: Int
    let capacity: Int
    let blockCount: Int

    /// Scalars of the cache, kept behind a pointer (see the type's comment).
    private struct State {
        var slotsInUse = 0
        var newest: Int32 = -1
        var oldest: Int32 = -1
        var lastBlock = -1
        var lastMemory: UnsafeRawPointer?
        var decodedBlocks = 0
        var hits = 0
        var freeSlot: Int32 = -1
    }

    private let state: UnsafeMutablePointer<State>
    private let slotMemory: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let blockOfSlot: UnsafeMutablePointer<Int>
    private let newer: UnsafeMutablePointer<Int32>
    private let older: UnsafeMutablePointer<Int32>
    private let index: BlockSlotIndex

    init(blockCount: Int, blockByteCount: Int, byteLimit: Int) {
        self.blockByteCount = blockByteCount
        self.blockCount = blockCount
        let capacity = max(1, min(byteLimit / max(blockByteCount, 1), blockCount, Int(Int32.max)))
        self.capacity = capacity
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        slotMemory = .allocate(capacity: capacity)
        slotMemory.initialize(repeating: nil, count: capacity)
        blockOfSlot = .allocate(capacity: capacity)
        blockOfSlot.initialize(repeating: -1, count: capacity)
        newer = .allocate(capacity: capacity)
        newer.initialize(repeating: -1, count: capacity)
        older = .allocate(capacity: capacity)
        older.initialize(repeating: -1, count: capacity)
        index = BlockSlotIndex(blockCount: blockCount)
    }

    deinit {
        for slot in 0..<capacity { slotMemory[slot]?.deallocate() }
        slotMemory.deallocate()
        blockOfSlot.deallocate()
        newer.deallocate()
        older.deallocate()
        state.deallocate()
    }

    /// Blocks currently held.
    var cachedBlocks: Int { state.pointee.slotsInUse - (state.pointee.freeSlot >= 0 ? 1 : 0) }
    /// Bytes of block data currently held.
    var cachedBytes: Int { cachedBlocks * blockByteCount }
    /// Blocks decoded into the cache so far (misses that were filled).
    var decodedBlocks: Int { state.pointee.decodedBlocks }
    /// Lookups answered from the cache.
    var hits: Int { state.pointee.hits }

    /// The decoded block, or nil when it is not cached. A hit becomes the
    /// most recent. `block` must be in 0..<blockCount.
    @inline(__always) func lookup(_ block: Int) -> UnsafeRawPointer? {
        if block == state.pointee.lastBlock, let memory = state.pointee.lastMemory {
            state.pointee.hits &+= 1
            return memory
        }
        let slot = index[block]
        guard slot >= 0, let memory = slotMemory[Int(slot)] else { return nil }
        state.pointee.hits &+= 1
        moveToNewest(slot)
        state.pointee.lastBlock = block
        state.pointee.lastMemory = UnsafeRawPointer(memory)
        return UnsafeRawPointer(memory)
    }

    /// Decodes `block` into a slot with `fill` (evicting the least recently
    /// used block when full) and returns it. When `fill` throws, the slot is
    /// kept free and the block stays uncached.
    func insert(_ block: Int, fill: (UnsafeMutableRawPointer) throws(RasterError) -> Void) throws(RasterError) -> UnsafeRawPointer {
        let (slot, memory) = takeSlot()
        do {
            try fill(memory)
        } catch {
            state.pointee.freeSlot = slot
            throw error
        }
        state.pointee.decodedBlocks &+= 1
        blockOfSlot[Int(slot)] = block
        index[block] = slot
        attachAsNewest(slot)
        state.pointee.lastBlock = block
        state.pointee.lastMemory = UnsafeRawPointer(memory)
        return UnsafeRawPointer(memory)
    }

    /// A free slot: the one a failed fill released, a new one while under
    /// capacity, or the least recently used one (evicted).
    private func takeSlot() -> (Int32, UnsafeMutableRawPointer) {
        let slot: Int32
        if state.pointee.freeSlot >= 0 {
            slot = state.pointee.freeSlot
            state.pointee.freeSlot = -1
        } else if state.pointee.slotsInUse < capacity {
            slot = Int32(state.pointee.slotsInUse)
            state.pointee.slotsInUse += 1
        } else {
            slot = evictOldest()
        }
        if let memory = slotMemory[Int(slot)] { return (slot, memory) }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(blockByteCount, 1), alignment: 16)
        slotMemory[Int(slot)] = memory
        return (slot, memory)
    }

    /// Removes the least recently used block and returns its slot.
    private func evictOldest() -> Int32 {
        let slot = state.pointee.oldest
        detach(slot)
        let evicted = blockOfSlot[Int(slot)]
        index[evicted] = -1
        blockOfSlot[Int(slot)] = -1
        if evicted == state.pointee.lastBlock {
            state.pointee.lastBlock = -1
            state.pointee.lastMemory = nil
        }
        return slot
    }

    private func detach(_ slot: Int32) {
        let s = Int(slot)
        let newerSlot = newer[s], olderSlot = older[s]
        if newerSlot >= 0 { older[Int(newerSlot)] = olderSlot } else { state.pointee.newest = olderSlot }
        if olderSlot >= 0 { newer[Int(olderSlot)] = newerSlot } else { state.pointee.oldest = newerSlot }
        newer[s] = -1
        older[s] = -1
    }

    private func attachAsNewest(_ slot: Int32) {
        let s = Int(slot)
        let newest = state.pointee.newest
        older[s] = newest
        newer[s] = -1
        if newest >= 0 { newer[Int(newest)] = slot }
        state.pointee.newest = slot
        if state.pointee.oldest < 0 { state.pointee.oldest = slot }
    }

    @inline(__always) private func moveToNewest(_ slot: Int32) {
        guard slot != state.pointee.newest else { return }
        detach(slot)
        attachAsNewest(slot)
    }
}

/// Block number → cache slot (−1: not cached): a dense table for up to 2^22
/// blocks (16 MiB at most), a dictionary beyond. Owned by one ``BlockCache``.
final class BlockSlotIndex {
    static let denseLimit = 1 << 22
    private let dense: UnsafeMutablePointer<Int32>?
    private var sparse: [Int: Int32] = [:]

    init(blockCount: Int) {
        if blockCount <= BlockSlotIndex.denseLimit {
            let table = UnsafeMutablePointer<Int32>.allocate(capacity: max(blockCount, 1))
            table.initialize(repeating: -1, count: max(blockCount, 1))
            dense = table
        } else {
            dense = nil
        }
    }

    deinit { dense?.deallocate() }

    subscript(block: Int) -> Int32 {
        @inline(__always) get {
            if let dense { return dense[block] }
            return sparse[block] ?? -1
        }
        set {
            if let dense {
                dense[block] = newValue
            } else {
                sparse[block] = newValue < 0 ? nil : newValue
            }
        }
    }
}
