/// Interned, reference-counted strings for the entity store's compact
/// observation records: each distinct string is stored once, however many
/// observations carry it, and freed when the last of them is purged.
struct StringTable {
    /// A string as a dictionary key hashed by one cheap pass over its UTF-8
    /// (FNV-1a, fed to the hasher as one word) instead of `String`'s own
    /// hashing: every observation interns its unique strings (a global id),
    /// so this runs several times per observation. Equality is `String`'s.
    struct Key: Hashable {
        let string: String
        let fingerprint: UInt64

        init(_ string: String) {
            var text = string
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            text.withUTF8 { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            }
            self.string = text
            fingerprint = hash
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.fingerprint == rhs.fingerprint && lhs.string == rhs.string }
        func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }
    }

    private var idsByString: [Key: UInt32] = [:]
    private var strings: [String] = []

    /// The strings by id (a freed id holds an empty string until reused).
    var storage: [String] { strings }

    private var referenceCounts: [UInt32] = []
    private var freeIDs: [UInt32] = []

    /// Number of distinct strings held.
    var count: Int { idsByString.count }

    /// The id for `string`, taking one reference.
    mutating func retain(_ string: String) -> UInt32 {
        let key = Key(string)
        if let id = idsByString[key] {
            referenceCounts[Int(id)] += 1
            return id
        }
        let id: UInt32
        if let reused = freeIDs.popLast() {
            id = reused
            strings[Int(id)] = string
            referenceCounts[Int(id)] = 1
        } else {
            id = UInt32(strings.count)
            strings.append(string)
            referenceCounts.append(1)
        }
        idsByString[key] = id
        return id
    }

    /// Takes another reference to an id already held.
    mutating func retain(id: UInt32) {
        referenceCounts[Int(id)] += 1
    }

    /// Drops one reference; the string is freed with the last.
    mutating func release(_ id: UInt32) {
        let index = Int(id)
        referenceCounts[index] -= 1
        if referenceCounts[index] == 0 {
            idsByString[Key(strings[index])] = nil
            strings[index] = ""
            freeIDs.append(id)
        }
    }

    func string(_ id: UInt32) -> String { strings[Int(id)] }

    /// Runs `body` with the strings indexed by id (valid only during the call).
    func withStrings<Result>(_ body: (UnsafeBufferPointer<String>) throws -> Result) rethrows -> Result {
        try strings.withUnsafeBufferPointer(body)
    }

    mutating func removeAll() {
        self = StringTable()
    }
}
