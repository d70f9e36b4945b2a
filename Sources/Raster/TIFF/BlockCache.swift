/// A least-recently-used cache of decoded blocks (tiles or strips), bounded
/// by bytes.
///
/// All blocks of one image have the same size, so the cache is a pool of
/// `capacity = max(1, byteLimit / blockByteCount)` equal slots, allocated
/// only as they are first needed: it never holds more than
/// `max(byteLimit, blockByteCount)` bytes of block data. A lookup is an array
/// read (a dictionary for images of more than 2^22 blocks) plus an O(1)
/// move to the front of the recency list. Not thread-safe: owned by one
/// raster and used from one thread at a time.
final class BlockCache {
    let blockByteCount: Int
    let capacity: Int
    private var slotMemory: [UnsafeMutableRawPointer] = []
    private var blockOfSlot: [Int] = []
    private var newer: [Int32] = []
    private var older: [Int32] = []
    private var newest: Int32 = -1
    private var oldest: Int32 = -1
    private var freeSlots: [Int32] = []
    private var index: BlockSlotIndex
    private var lastBlock = -1
    private var lastMemory: UnsafeRawPointer?

    /// Blocks decoded into the cache so far (misses that were filled).
    private(set) var decodedBlocks = 0
    /// Lookups answered from the cache.
    private(set) var hits = 0

    init(blockCount: Int, blockByteCount: Int, byteLimit: Int) {
        self.blockByteCount = blockByteCount
        self.capacity = max(1, min(byteLimit / max(blockByteCount, 1), blockCount, Int(Int32.max)))
        self.index = BlockSlotIndex(blockCount: blockCount)
    }

    deinit {
        for memory in slotMemory { memory.deallocate() }
    }

    /// Blocks currently held.
    var cachedBlocks: Int { slotMemory.count - freeSlots.count }
    /// Bytes of block data currently held.
    var cachedBytes: Int { cachedBlocks * blockByteCount }

    /// The decoded block, or nil when it is not cached. A hit becomes the most recent.
    @inline(__always) func lookup(_ block: Int) -> UnsafeRawPointer? {
        if block == lastBlock, let lastMemory {
            hits &+= 1
            return lastMemory
        }
        let slot = index[block]
        guard slot >= 0 else { return nil }
        hits &+= 1
        moveToNewest(slot)
        let memory = UnsafeRawPointer(slotMemory[Int(slot)])
        lastBlock = block
        lastMemory = memory
        return memory
    }

    /// Decodes `block` into a slot with `fill` (evicting the least recently
    /// used block when full) and returns it. When `fill` throws, the slot is
    /// returned to the pool and the block stays uncached.
    func insert(_ block: Int, fill: (UnsafeMutableRawPointer) throws(RasterError) -> Void) throws(RasterError) -> UnsafeRawPointer {
        let slot = takeSlot()
        let memory = slotMemory[Int(slot)]
        do {
            try fill(memory)
        } catch {
            freeSlots.append(slot)
            throw error
        }
        decodedBlocks &+= 1
        blockOfSlot[Int(slot)] = block
        index[block] = slot
        attachAsNewest(slot)
        lastBlock = block
        lastMemory = UnsafeRawPointer(memory)
        return UnsafeRawPointer(memory)
    }

    /// A free slot: a released one, a new one while under capacity, or the
    /// least recently used one (evicted).
    private func takeSlot() -> Int32 {
        if let slot = freeSlots.popLast() { return slot }
        if slotMemory.count < capacity {
            slotMemory.append(UnsafeMutableRawPointer.allocate(byteCount: max(blockByteCount, 1), alignment: 16))
            blockOfSlot.append(-1)
            newer.append(-1)
            older.append(-1)
            return Int32(slotMemory.count - 1)
        }
        let slot = oldest
        detach(slot)
        let evicted = blockOfSlot[Int(slot)]
        index[evicted] = -1
        blockOfSlot[Int(slot)] = -1
        if evicted == lastBlock {
            lastBlock = -1
            lastMemory = nil
        }
        return slot
    }

    private func detach(_ slot: Int32) {
        let s = Int(slot)
        let newerSlot = newer[s], olderSlot = older[s]
        if newerSlot >= 0 { older[Int(newerSlot)] = olderSlot } else { newest = olderSlot }
        if olderSlot >= 0 { newer[Int(olderSlot)] = newerSlot } else { oldest = newerSlot }
        newer[s] = -1
        older[s] = -1
    }

    private func attachAsNewest(_ slot: Int32) {
        let s = Int(slot)
        older[s] = newest
        newer[s] = -1
        if newest >= 0 { newer[Int(newest)] = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    @inline(__always) private func moveToNewest(_ slot: Int32) {
        guard slot != newest else { return }
        detach(slot)
        attachAsNewest(slot)
    }
}

/// Block number → cache slot (−1: not cached): a dense array for up to 2^22
/// blocks (16 MiB at most), a dictionary beyond.
struct BlockSlotIndex {
    static let denseLimit = 1 << 22
    private var dense: [Int32]
    private var sparse: [Int: Int32]
    private let isDense: Bool

    init(blockCount: Int) {
        isDense = blockCount <= BlockSlotIndex.denseLimit
        dense = isDense ? [Int32](repeating: -1, count: max(blockCount, 0)) : []
        sparse = [:]
    }

    subscript(block: Int) -> Int32 {
        @inline(__always) get { isDense ? dense[block] : (sparse[block] ?? -1) }
        set {
            if isDense {
                dense[block] = newValue
            } else if newValue < 0 {
                sparse[block] = nil
            } else {
                sparse[block] = newValue
            }
        }
    }
}
