/// Open-addressing hash index from group hashes to group numbers, for
/// rows grouped by value (``GroupValueRules``). It stores only hashes; the
/// accumulator compares the candidate group's stored values, so nothing is
/// allocated per row. Linear probing, at most half full. A value type.
@usableFromInline
struct ValueKeyIndex: Sendable {
    /// Group number per slot, -1 when empty.
    @usableFromInline var slots: [Int32]
    /// The hash of every group, by group number.
    @usableFromInline var hashes: [Int] = []
    @usableFromInline var mask: Int

    init() {
        slots = Array(repeating: -1, count: 16)
        mask = 15
    }

    /// Calls `matches` for each group whose hash equals `hash` and returns
    /// the first group it accepts, or nil.
    @inlinable @inline(__always)
    func group(hash: Int, where matches: (Int) -> Bool) -> Int? {
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { return nil }
            let group = Int(entry)
            if hashes[group] == hash && matches(group) { return group }
            slot = (slot &+ 1) & mask
        }
    }

    /// Adds the next group number with `hash`.
    @usableFromInline
    mutating func append(hash: Int) {
        if (hashes.count + 1) * 2 > slots.count { grow() }
        hashes.append(hash)
        place(hashes.count - 1)
    }

    private mutating func place(_ group: Int) {
        var slot = hashes[group] & mask
        while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
        slots[slot] = Int32(truncatingIfNeeded: group)
    }

    private mutating func grow() {
        let capacity = slots.count * 2
        slots = Array(repeating: -1, count: capacity)
        mask = capacity - 1
        for group in hashes.indices { place(group) }
    }
}
