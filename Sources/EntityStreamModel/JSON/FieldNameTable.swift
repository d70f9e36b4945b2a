/// How a field's declared type changes the typing of a JSON number.
enum FieldValueKind: UInt8, Sendable {
    /// Keep the JSON type (int for integer tokens that fit in Int64, else double).
    case plain
    /// Integer field: an integral number (5.0, 1e2) becomes `.int`.
    case integer
    /// Float field: every number becomes `.double`.
    case floatingPoint
    /// Date field: an integral number becomes `.date(milliseconds:)`.
    case date

    init(_ type: FieldType) {
        if type == .date {
            self = .date
        } else if type.isInteger {
            self = .integer
        } else if type.isFloatingPoint {
            self = .floatingPoint
        } else {
            self = .plain
        }
    }
}

/// Maps attribute-key bytes straight to schema field indices, comparing
/// ASCII case-insensitively like ``Schema/index(ofField:)``, without making a
/// String per key.
///
/// A key's first 16 bytes are loaded as two 64-bit words and A–Z-folded with
/// SWAR arithmetic; those words and the length are the hash and, for names of
/// up to 16 bytes, the whole comparison (longer names compare their tail
/// byte by byte). Open addressing over a power-of-two slot array.
///
/// It mirrors a ``Schema``'s fields (index i = `schema.fields[i]`) and may
/// hold extra aliases (other spellings the schema resolved to an existing
/// field, e.g. canonically equivalent Unicode). A value type; `Sendable`.
struct FieldNameTable: Sendable {
    /// The first 16 bytes of a name, A–Z folded, zero padded, and its length.
    struct FoldedHead: Equatable, Sendable {
        var low: UInt64
        var high: UInt64
        var length: Int

        var hash: Int {
            let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(truncatingIfNeeded: length)) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: mixed >> 32)
        }
    }

    /// Number of schema fields mirrored (the next field's index).
    private(set) var fieldCount = 0
    /// Value kind per field index.
    private(set) var valueKinds: [FieldValueKind] = []
    /// Per entry (a field name or an alias): its head, field index, and folded
    /// bytes beyond the first 16 (empty for short names).
    private var heads: [FoldedHead] = []
    private var fieldIndices: [Int] = []
    private var tails: [[UInt8]] = []
    /// Entry index + 1 per slot (0 = empty); the count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 16)
    /// Entry index + 1 matched by the key at each position of the previous
    /// attributes object (0 = none): messages of a stream repeat their key
    /// order, so this guess usually saves the hash probe.
    private var entryByKeyPosition: [Int32] = []

    init(schema: Schema) {
        synchronize(with: schema)
    }

    /// Adds the schema's fields that are not mirrored yet (a schema only grows).
    mutating func synchronize(with schema: Schema) {
        let fields = schema.fields
        while fieldCount < fields.count {
            let field = fields[fieldCount]
            valueKinds.append(FieldValueKind(field.type))
            var name = field.name
            name.withUTF8 { insert(name: $0, fieldIndex: fieldCount) }
            fieldCount += 1
        }
    }

    /// Maps another spelling to an existing field.
    mutating func addAlias(_ name: UnsafeBufferPointer<UInt8>, fieldIndex: Int) {
        guard lookup(name) == nil else { return }
        insert(name: name, fieldIndex: fieldIndex)
    }

    /// The field index for `key` (raw UTF-8, compared with A–Z folded), or nil.
    func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let head = key.baseAddress.map { FieldNameTable.foldedHead($0, count: key.count, readable: key.count) }
            ?? FoldedHead(low: 0, high: 0, length: 0)
        return probe(head, key).map { fieldIndices[$0] }
    }

    /// The field index for the `count` bytes at `start`, the key at
    /// `keyPosition` in its attributes object, of which `readable` (≥ count)
    /// bytes may be read (extra readable bytes let the head load whole words).
    @inline(__always)
    mutating func lookup(_ start: UnsafePointer<UInt8>, count: Int, readable: Int, keyPosition: Int) -> Int? {
        let head = FieldNameTable.foldedHead(start, count: count, readable: readable)
        let key = UnsafeBufferPointer(start: start, count: count)
        if keyPosition < entryByKeyPosition.count {
            let guess = Int(entryByKeyPosition[keyPosition]) - 1
            if guess >= 0, heads[guess] == head, count <= 16 || FieldNameTable.tailMatches(key, tails[guess]) {
                return fieldIndices[guess]
            }
        }
        guard let entry = probe(head, key) else { return nil }
        if keyPosition < 256 {
            if keyPosition >= entryByKeyPosition.count {
                entryByKeyPosition.append(contentsOf: repeatElement(0, count: keyPosition + 1 - entryByKeyPosition.count))
            }
            entryByKeyPosition[keyPosition] = Int32(entry + 1)
        }
        return fieldIndices[entry]
    }

    /// The entry index whose name matches, by hash probe.
    private func probe(_ head: FoldedHead, _ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        var slot = head.hash & mask
        while true {
            let entry = Int(slots[slot]) - 1
            if entry < 0 { return nil }
            if heads[entry] == head, head.length <= 16 || FieldNameTable.tailMatches(key, tails[entry]) {
                return entry
            }
            slot = (slot + 1) & mask
        }
    }

    private static func tailMatches(_ key: UnsafeBufferPointer<UInt8>, _ tail: [UInt8]) -> Bool {
        guard key.count == 16 + tail.count else { return false }
        for i in tail.indices where ASCII.folded(key[16 + i]) != tail[i] { return false }
        return true
    }

    /// Loads up to 16 bytes at `start` into two little-endian words, zeroing
    /// bytes past `count`, and folds A–Z to a–z in both.
    @inline(__always)
    static func foldedHead(_ start: UnsafePointer<UInt8>, count: Int, readable: Int) -> FoldedHead {
        var low: UInt64 = 0
        var high: UInt64 = 0
        if readable >= 16 {
            let raw = UnsafeRawPointer(start)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if count < 16 {
                if count <= 8 {
                    high = 0
                    if count < 8 { low &= (1 << UInt64(count * 8)) &- 1 }
                } else {
                    high &= (1 << UInt64((count - 8) * 8)) &- 1
                }
            }
        } else {
            for i in 0..<min(count, 16) {
                let byte = UInt64(start[i])
                if i < 8 { low |= byte << UInt64(i * 8) } else { high |= byte << UInt64((i - 8) * 8) }
            }
        }
        return FoldedHead(low: foldASCII(low), high: foldASCII(high), length: count)
    }

    /// A–Z → a–z in each byte lane; other bytes (including non-ASCII) unchanged.
    @inline(__always)
    static func foldASCII(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let heptets = word & ~highs
        let atLeastA = heptets &+ ones &* UInt64(0x80 - 0x41)        // high bit set where lane >= 'A'
        let aboveZ = heptets &+ ones &* UInt64(0x80 - 0x5B)          // high bit set where lane > 'Z'
        let isUpper = atLeastA & ~aboveZ & ~word & highs
        return word | (isUpper >> 2)
    }

    private mutating func insert(name: UnsafeBufferPointer<UInt8>, fieldIndex: Int) {
        let head = name.baseAddress.map { FieldNameTable.foldedHead($0, count: name.count, readable: name.count) }
            ?? FoldedHead(low: 0, high: 0, length: 0)
        heads.append(head)
        fieldIndices.append(fieldIndex)
        tails.append(name.count > 16 ? name[16...].map(ASCII.folded) : [])
        if heads.count * 2 > slots.count {
            slots = Array(repeating: 0, count: slots.count * 2)
            for entry in heads.indices { place(entry) }
        } else {
            place(heads.count - 1)
        }
    }

    private mutating func place(_ entry: Int) {
        let mask = slots.count - 1
        var slot = heads[entry].hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(entry + 1)
    }
}
