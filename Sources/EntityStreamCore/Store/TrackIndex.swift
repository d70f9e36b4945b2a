import EntityStreamModel
/// The entity table's slots by track id: what `[AttributeValue: Int]` would
/// hold, with the same key equality, for the store's hottest lookup (every
/// observation finds its entity here).
///
/// An open-addressing table (linear probing, at most half full, deletion by
/// backward shift, no tombstones) that hashes a key once per lookup without
/// `Hasher`: an ASCII string by its bytes, a word at a time
/// (``StringTable/fingerprint(_:)``), a number by mixing its bits. Strings
/// are equal by their Unicode scalars (``ExactText``), so their bytes are
/// their hash whatever they hold.
/// A value type; copies share storage until written (a ``StoreContents``
/// keeps one).
struct TrackIndex {
    /// Per table position: the key, its hash, and the entity slot + 1 (0 = empty position).
    private var keys: [AttributeValue] = []
    private var hashes: [UInt64] = []
    private var slots: [Int32] = []

    /// Track ids held.
    private(set) var count = 0

    /// The entity slot of `track`; assigning nil removes it.
    subscript(track: AttributeValue) -> Int? {
        get {
            guard count > 0 else { return nil }
            let hash = Self.hash(track)
            guard let position = find(track, hash: hash).found else { return nil }
            return Int(slots[position]) - 1
        }
        set {
            if let slot = newValue { insert(track, slot: slot) } else { remove(track) }
        }
    }

    private mutating func insert(_ track: AttributeValue, slot: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        let hash = Self.hash(track)
        let (found, empty) = find(track, hash: hash)
        if let found {
            slots[found] = Int32(slot + 1)
            return
        }
        keys[empty] = track
        hashes[empty] = hash
        slots[empty] = Int32(slot + 1)
        count += 1
    }

    private mutating func remove(_ track: AttributeValue) {
        guard count > 0, var hole = find(track, hash: Self.hash(track)).found else { return }
        let mask = slots.count - 1
        var next = hole
        while true {
            next = (next + 1) & mask
            if slots[next] == 0 { break }
            if LinearProbing.mayFill(hole: hole, from: next, home: Int(truncatingIfNeeded: hashes[next]) & mask) {
                keys[hole] = keys[next]
                hashes[hole] = hashes[next]
                slots[hole] = slots[next]
                hole = next
            }
        }
        keys[hole] = .null
        slots[hole] = 0
        count -= 1
    }

    /// The position holding `track`, or else the empty position where probing for it stopped.
    private func find(_ track: AttributeValue, hash: UInt64) -> (found: Int?, empty: Int) {
        let mask = slots.count - 1
        var position = Int(truncatingIfNeeded: hash) & mask
        while slots[position] != 0 {
            if hashes[position] == hash && keys[position] == track { return (position, position) }
            position = (position + 1) & mask
        }
        return (nil, position)
    }

    /// Doubles the table (at least 16 positions) and places every entry again.
    private mutating func grow() {
        let capacity = max(16, slots.count * 2)
        let (oldKeys, oldHashes, oldSlots) = (keys, hashes, slots)
        keys = [AttributeValue](repeating: .null, count: capacity)
        hashes = [UInt64](repeating: 0, count: capacity)
        slots = [Int32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for index in oldSlots.indices where oldSlots[index] != 0 {
            var position = Int(truncatingIfNeeded: oldHashes[index]) & mask
            while slots[position] != 0 { position = (position + 1) & mask }
            keys[position] = oldKeys[index]
            hashes[position] = oldHashes[index]
            slots[position] = oldSlots[index]
        }
    }

    /// A hash consistent with `AttributeValue`'s equality.
    static func hash(_ value: AttributeValue) -> UInt64 {
        switch value {
        case .string(let string):
            var text = string
            return text.withUTF8 { StringTable.fingerprint(UnsafeRawBufferPointer($0)) }
        case .int(let number): return mix(UInt64(bitPattern: number), 2)
        case .date(let milliseconds): return mix(UInt64(bitPattern: milliseconds), 3)
        // 0.0 and -0.0 are equal, so they hash alike (NaN equals nothing, so any hash will do).
        case .double(let number): return mix((number == 0 ? 0 : number).bitPattern, 4)
        case .bool(let flag): return mix(flag ? 1 : 0, 5)
        case .null: return mix(0, 6)
        }
    }

    /// SplitMix64's finalizer over `value` and a per-case `salt`.
    private static func mix(_ value: UInt64, _ salt: UInt64) -> UInt64 {
        var z = value &+ salt &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
