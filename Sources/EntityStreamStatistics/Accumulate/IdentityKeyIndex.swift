/// Open-addressing hash index from a group key made of up to four
/// identity words (``IdentityKeyedRow/identityWord(at:)``) to a group number.
///
/// Linear probing over a power-of-two table kept at most half full; keys
/// are mixed with a per-index random seed (MurmurHash3's finaliser), so
/// crafted values cannot force collisions. Lookups allocate nothing.
/// A value type.
@usableFromInline
struct IdentityKeyIndex: Sendable {
    /// Entry number per slot, -1 when empty.
    @usableFromInline var slots: [Int32]
    @usableFromInline var keys: [SIMD4<UInt64>] = []
    @usableFromInline var groups: [Int32] = []
    @usableFromInline var mask: Int
    @usableFromInline let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
        slots = Array(repeating: -1, count: 16)
        mask = 15
    }

    @inlinable @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z &>> 33)) &* 0xFF51_AFD7_ED55_8CCD
        z = (z ^ (z &>> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return z ^ (z &>> 33)
    }

    /// The hash of the first `width` words of `key`.
    @inlinable @inline(__always)
    func hash(_ key: SIMD4<UInt64>, width: Int) -> Int {
        var h = Self.mix(key[0] ^ seed)
        var j = 1
        while j < width {
            h = Self.mix(h ^ key[j])
            j &+= 1
        }
        return Int(truncatingIfNeeded: h)
    }

    /// The group of `key`, or nil when the key is new.
    @inlinable @inline(__always)
    func group(of key: SIMD4<UInt64>, hash: Int) -> Int? {
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { return nil }
            if keys[Int(entry)] == key { return Int(groups[Int(entry)]) }
            slot = (slot &+ 1) & mask
        }
    }

    /// Records that `key` (not present) belongs to `group`.
    @usableFromInline
    mutating func insert(_ key: SIMD4<UInt64>, hash: Int, group: Int, width: Int) {
        if (keys.count + 1) * 2 > slots.count { grow(width: width) }
        keys.append(key)
        groups.append(Int32(truncatingIfNeeded: group))
        var slot = hash & mask
        while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
        slots[slot] = Int32(truncatingIfNeeded: keys.count - 1)
    }

    private mutating func grow(width: Int) {
        let capacity = slots.count * 2
        slots = Array(repeating: -1, count: capacity)
        mask = capacity - 1
        for (entry, key) in keys.enumerated() {
            var slot = hash(key, width: width) & mask
            while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: entry)
        }
    }
}
