import EntityStreamModel
/// Interned, reference-counted strings for the entity store's compact
/// observation records: each distinct string is stored once, however many
/// observations carry it, and freed when the last of them is purged.
///
/// Every observation interns its unique strings (a global id) and releases
/// those of the observation it purges, so both run several times per
/// observation. The index is therefore an open-addressing table of ids
/// (linear probing, at most half full, deletion by backward shift) keyed by
/// a fingerprint computed once per string, a word at a time
/// (``fingerprint(_:)``), and kept per id: releasing the last reference
/// finds the id's slot without hashing or comparing text again. Strings are
/// one id exactly when their Unicode scalars are equal (``ExactText``):
/// canonically equivalent spellings are different values, as in SQL.
struct StringTable {
    /// The strings by id (a freed id holds an empty string until reused).
    private var strings: [String] = []
    private var fingerprints: [UInt64] = []
    private var referenceCounts: [UInt32] = []
    private var freeIDs: [UInt32] = []
    /// The index: `id + 1` per slot, 0 for an empty slot; a power of two long (or empty).
    private var slots: [UInt32] = []

    /// Number of distinct strings held.
    private(set) var count = 0
    /// Bytes the distinct strings hold (see ``bytes(of:)``), for the store's byte count.
    private(set) var bytes = 0

    /// The strings by id (a freed id holds an empty string until reused).
    var storage: [String] { strings }

    /// The id for `string`, taking one reference.
    mutating func retain(_ string: String) -> UInt32 {
        var text = string
        let fingerprint = text.withUTF8 { Self.fingerprint(UnsafeRawBufferPointer($0)) }
        if slots.isEmpty || (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: fingerprint) & mask
        while true {
            let slot = slots[index]
            if slot == 0 { break }
            let id = Int(slot - 1)
            if fingerprints[id] == fingerprint && ExactText.equal(strings[id], text) {
                referenceCounts[id] += 1
                return UInt32(id)
            }
            index = (index + 1) & mask
        }
        let id: UInt32
        if let reused = freeIDs.popLast() {
            id = reused
            strings[Int(id)] = text
            fingerprints[Int(id)] = fingerprint
            referenceCounts[Int(id)] = 1
        } else {
            id = UInt32(strings.count)
            strings.append(text)
            fingerprints.append(fingerprint)
            referenceCounts.append(1)
        }
        slots[index] = id + 1
        count += 1
        bytes += Self.bytes(of: text)
        return id
    }

    /// What one distinct string costs: its entries in the table's arrays and
    /// index, and, beyond 15 UTF-8 bytes (what a `String` holds inline), its
    /// heap allocation.
    static func bytes(of string: String) -> Int {
        let utf8 = string.utf8.count
        return 48 + (utf8 > 15 ? (utf8 + 48) & ~15 : 0)
    }

    /// Takes another reference to an id already held.
    mutating func retain(id: UInt32) {
        referenceCounts[Int(id)] += 1
    }

    /// Drops one reference; the string is freed with the last.
    mutating func release(_ id: UInt32) {
        let index = Int(id)
        referenceCounts[index] -= 1
        guard referenceCounts[index] == 0 else { return }
        removeFromIndex(id)
        bytes -= Self.bytes(of: strings[index])
        strings[index] = ""
        freeIDs.append(id)
        count -= 1
    }

    func string(_ id: UInt32) -> String { strings[Int(id)] }

    /// Runs `body` with the strings indexed by id (valid only during the call).
    func withStrings<Result>(_ body: (UnsafeBufferPointer<String>) throws -> Result) rethrows -> Result {
        try strings.withUnsafeBufferPointer(body)
    }

    mutating func removeAll() {
        self = StringTable()
    }

    // MARK: The index

    /// The slot an id's fingerprint starts probing from.
    private func home(_ id: Int, mask: Int) -> Int {
        Int(truncatingIfNeeded: fingerprints[id]) & mask
    }

    /// Empties `id`'s slot, shifting back the entries after it in its probe
    /// run that may move (``LinearProbing``).
    private mutating func removeFromIndex(_ id: UInt32) {
        let mask = slots.count - 1
        var hole = home(Int(id), mask: mask)
        while slots[hole] != id + 1 { hole = (hole + 1) & mask }
        var next = hole
        while true {
            next = (next + 1) & mask
            let slot = slots[next]
            if slot == 0 { break }
            if LinearProbing.mayFill(hole: hole, from: next, home: home(Int(slot - 1), mask: mask)) {
                slots[hole] = slot
                hole = next
            }
        }
        slots[hole] = 0
    }

    /// Doubles the index (at least 16 slots) and places every held id again.
    private mutating func grow() {
        let capacity = max(16, slots.count * 2)
        slots = [UInt32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for id in referenceCounts.indices where referenceCounts[id] > 0 {
            var index = home(id, mask: mask)
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = UInt32(id + 1)
        }
    }

    /// A 64-bit fingerprint of `bytes`, eight at a time (one multiply per
    /// word), finished with MurmurHash3's avalanche so that the low bits,
    /// which pick the slot, depend on every byte.
    static func fingerprint(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: count)
        var offset = 0
        while offset + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        if offset < count {
            var word: UInt64 = 0
            for shift in 0..<(count - offset) {
                word |= UInt64(bytes[offset + shift]) << (8 * UInt64(shift))
            }
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
        }
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}
