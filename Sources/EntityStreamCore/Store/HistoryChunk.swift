/// A run of up to ``capacity`` observation records of one track, stored as
/// 8-byte words: observation id, receive time, x, y, optionally z and m,
/// then one packed value per attribute.
///
/// All records of a chunk share its layout (attribute count, z/m presence,
/// spatial reference); an observation that needs a different layout starts
/// a new chunk, so schemas can grow without rewriting history. Its
/// ``ZoneMap`` bounds what the records span, so scans skip whole chunks.
/// Copies share their words (``ChunkStorage``): copying a chunk is O(1),
/// and so is a store snapshot's cost per track.
///
/// Memory follows the live records, not the chunk's capacity: the words
/// start with room for ``initialRecords`` and double as records come (a
/// track of one observation holds one small allocation); purged records
/// make room again (the live ones move to the front when no snapshot shares
/// the words, once at least half as many are purged as are live), and a
/// chunk whose live records fill a quarter of its room or less moves to
/// smaller words. So a chunk holds at most about four times its live
/// records' words, plus ``initialRecords``. A chunk takes ``capacity``
/// appends in all, then the track starts a new one.
struct HistoryChunk {
    struct Layout: Hashable {
        var attributeCount: Int
        var hasZM: Bool
        var wkid: Int?
        var stride: Int { 4 + (hasZM ? 2 : 0) + attributeCount }
    }

    /// Appends a chunk takes before the track starts a new one.
    static let capacity = 128
    /// Records the words of a new chunk have room for.
    static let initialRecords = 2
    /// Chunks with room for fewer records than this never move to smaller words.
    static let shrinkableRecords = 32

    let layout: Layout
    /// Shared, append-only: only `0..<end * stride` belongs to this copy.
    private var storage: ChunkStorage
    /// Index of the oldest live record in the words.
    private(set) var start = 0
    /// Records in the words (live or purged): the live ones are `start..<end`.
    private(set) var end = 0
    /// Records appended since the chunk was made (at most ``capacity``).
    private(set) var appended = 0
    /// The ranges the records span (times, coordinates).
    private(set) var zone = ZoneMap()
    /// The time fields (schema indices) the zone map's start/end bounds were
    /// built from; a scan on other fields cannot use them.
    let timeFields: TimeFields

    /// Schema indices of the start and end time fields, when the schema has them.
    struct TimeFields: Hashable {
        var start: Int?
        var end: Int?
    }

    init(layout: Layout, timeFields: TimeFields, reserving: Bool = true) {
        self.layout = layout
        self.timeFields = timeFields
        storage = reserving ? ChunkStorage(capacity: layout.stride * Self.initialRecords) : .empty
    }

    /// The chunk took its ``capacity`` appends: the next record starts a new chunk.
    var isFull: Bool { appended == Self.capacity }
    /// Words allocated for records (memory diagnostics).
    var capacityWords: Int { storage.capacity }
    var liveCount: Int { end - start }

    /// Appends one record; `attributes` are already packed; `start`/`end` are
    /// its own times from ``timeFields`` (nil when absent).
    mutating func append(id: Int64, receivedAt: Int64, x: UInt64, y: UInt64, z: UInt64, m: UInt64, attributes: [UInt64],
                         start: Int64?, end recordEnd: Int64?) {
        let hasPoint = PackedValue.tag(x) != PackedValue.nullTag
        zone.add(receivedAt: receivedAt, start: start, end: recordEnd,
                 x: hasPoint ? Double(bitPattern: x) : nil, y: hasPoint ? Double(bitPattern: y) : nil)
        let stride = layout.stride
        if !storage.claim(from: end * stride, count: stride) {
            makeRoom()
            _ = storage.claim(from: end * stride, count: stride)
        }
        let record = storage.words + end * stride
        record[0] = UInt64(bitPattern: id)
        record[1] = UInt64(bitPattern: receivedAt)
        record[2] = x
        record[3] = y
        var next = 4
        if layout.hasZM {
            record[4] = z
            record[5] = m
            next = 6
        }
        let count = min(attributes.count, layout.attributeCount)
        for index in 0..<count { record[next + index] = attributes[index] }
        for index in count..<layout.attributeCount { record[next + index] = PackedValue.null }
        end += 1
        appended += 1
    }

    /// Room for one more record at `end`. When at least half as many records
    /// were purged as are live, their room is reused: the live records move to
    /// the front (in place when no other copy reads these words, else to new
    /// words of the same size); otherwise the live records move to words
    /// twice as large. A copy that another copy appended past gets words of
    /// its own of the same size.
    private mutating func makeRoom() {
        let stride = layout.stride
        let live = end - start
        let roomRecords = storage.capacity / stride
        let reusesPurged = start > 0 && start * 2 >= live
        if reusesPurged && isKnownUniquelyReferenced(&storage) {
            storage.moveToFront(from: start * stride, count: live * stride)
        } else {
            let keepsRoom = reusesPurged || end < roomRecords
            let records = keepsRoom ? roomRecords : Swift.min(Self.capacity, Swift.max(Self.initialRecords, roomRecords * 2))
            storage = storage.copy(from: start * stride, count: live * stride, capacity: records * stride)
        }
        start = 0
        end = live
    }

    func id(at record: Int) -> Int64 { Int64(bitPattern: storage.words[record * layout.stride]) }
    func receivedAt(at record: Int) -> Int64 { Int64(bitPattern: storage.words[record * layout.stride + 1]) }
    func word(at record: Int, _ offset: Int) -> UInt64 { storage.words[record * layout.stride + offset] }

    /// Runs `body` with the chunk's words (valid only during the call).
    func withWords<Result>(_ body: (UnsafeBufferPointer<UInt64>) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: storage.words, count: end * layout.stride)) }
    }

    /// The packed attribute words of `record`.
    func attributeWords(at record: Int) -> [UInt64] {
        let base = record * layout.stride + 4 + (layout.hasZM ? 2 : 0)
        return withExtendedLifetime(storage) { Array(UnsafeBufferPointer(start: storage.words + base, count: layout.attributeCount)) }
    }

    /// Drops the oldest live record, releasing its strings, and returns its id and receive time.
    mutating func popOldest(strings: inout StringTable) -> (id: Int64, receivedAt: Int64) {
        let base = start * layout.stride
        let attributesBase = base + 4 + (layout.hasZM ? 2 : 0)
        for offset in attributesBase..<(attributesBase + layout.attributeCount) {
            let word = storage.words[offset]
            if PackedValue.isInterned(word) { strings.release(PackedValue.stringID(word)) }
        }
        let info = (Int64(bitPattern: storage.words[base]), Int64(bitPattern: storage.words[base + 1]))
        start += 1
        shrinkIfSparse()
        return info
    }

    /// Moves the live records to smaller words once they fill a quarter of
    /// the room or less (half the room then stays free for appends).
    private mutating func shrinkIfSparse() {
        let stride = layout.stride
        let roomRecords = storage.capacity / stride
        let live = end - start
        guard live > 0, roomRecords >= Self.shrinkableRecords, live * 4 <= roomRecords else { return }
        storage = storage.copy(from: start * stride, count: live * stride, capacity: (roomRecords / 2) * stride)
        start = 0
        end = live
    }
}
