import EntityStreamModel
/// One track's observations, oldest first, in compact chunks.
///
/// Appending and dropping the oldest are O(1) amortized; memory is about 8
/// bytes per attribute plus 32 bytes per observation (48 with z/m), in
/// words that follow the live records (see ``HistoryChunk``).
struct TrackHistory {
    private var chunks: [HistoryChunk] = []
    private var head = 0
    private(set) var count = 0
    /// Words the chunks' storages hold (allocated, live or not), for the store's byte count.
    private(set) var allocatedWords = 0

    mutating func append(id: Int64, geometry: Point?, receivedAt: Int64, packedAttributes: [UInt64], timeFields: HistoryChunk.TimeFields,
                         start: Int64?, end: Int64?) {
        let hasZM = geometry.map { $0.z != nil || $0.m != nil } ?? false
        let layout = HistoryChunk.Layout(attributeCount: packedAttributes.count, hasZM: hasZM, wkid: geometry?.wkid)
        if head == chunks.count || chunks[chunks.count - 1].isFull || !Self.fits(layout, in: chunks[chunks.count - 1].layout)
            || chunks[chunks.count - 1].timeFields != timeFields {
            var widened = layout
            if head < chunks.count {
                let last = chunks[chunks.count - 1].layout
                if last.wkid == layout.wkid {
                    widened.attributeCount = max(last.attributeCount, layout.attributeCount)
                    widened.hasZM = last.hasZM || layout.hasZM
                }
            }
            chunks.append(HistoryChunk(layout: widened, timeFields: timeFields))
            allocatedWords += chunks[chunks.count - 1].capacityWords
        }
        let x = geometry.map { PackedValue.double($0.x) } ?? PackedValue.null
        let y = geometry.map { PackedValue.double($0.y) } ?? PackedValue.null
        let z = geometry?.z.map(PackedValue.double) ?? PackedValue.null
        let m = geometry?.m.map(PackedValue.double) ?? PackedValue.null
        let last = chunks.count - 1
        let wordsBefore = chunks[last].capacityWords
        chunks[last].append(id: id, receivedAt: receivedAt, x: x, y: y, z: z, m: m,
                            attributes: packedAttributes, start: start, end: end)
        allocatedWords += chunks[last].capacityWords - wordsBefore
        count += 1
    }

    private static func fits(_ needed: HistoryChunk.Layout, in existing: HistoryChunk.Layout) -> Bool {
        needed.wkid == existing.wkid && needed.attributeCount <= existing.attributeCount && (!needed.hasZM || existing.hasZM)
    }

    /// Id and receive time of the oldest observation.
    var oldest: (id: Int64, receivedAt: Int64)? {
        guard head < chunks.count else { return nil }
        let chunk = chunks[head]
        return (chunk.id(at: chunk.start), chunk.receivedAt(at: chunk.start))
    }

    /// Drops the oldest observation, releasing its strings.
    @discardableResult
    mutating func removeOldest(strings: inout StringTable) -> (id: Int64, receivedAt: Int64)? {
        guard head < chunks.count else { return nil }
        let wordsBefore = chunks[head].capacityWords
        let info = chunks[head].popOldest(strings: &strings)
        count -= 1
        // An emptied chunk goes unless it is the last one and still open for appends
        // (chunks before the last are closed: a layout change started a new one).
        if chunks[head].liveCount == 0 && (chunks[head].isFull || head < chunks.count - 1 || count == 0) {
            chunks[head] = HistoryChunk(layout: chunks[head].layout, timeFields: chunks[head].timeFields, reserving: false)
            allocatedWords += chunks[head].capacityWords - wordsBefore
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head * 2 >= chunks.count {
                // Emptied chunks are dropped once they are half the array: a track that starts a
                // new chunk every 128 observations keeps one or two, not up to 32.
                chunks.removeFirst(head)
                head = 0
            }
        } else {
            allocatedWords += chunks[head].capacityWords - wordsBefore
        }
        return info
    }

    /// Records held in memory, live or already purged but still in a chunk
    /// (for memory diagnostics), and the chunk slots allocated.
    var retainedRecords: (records: Int, chunks: Int, capacityWords: Int) {
        var records = 0
        var words = 0
        for chunk in chunks[head...] {
            records += chunk.end
            words += chunk.capacityWords
        }
        return (records, chunks.count, words)
    }

    /// The chunks holding live records, oldest first (the first and last may
    /// be partly purged or partly filled: use their `start..<end`).
    var liveChunks: ArraySlice<HistoryChunk> { chunks[head...] }

    /// Chunks holding live records (for the store's byte count).
    var liveChunkCount: Int { chunks.count - head }

    /// Releases every observation's strings (the track is being dropped).
    mutating func releaseAll(strings: inout StringTable) {
        while count > 0 { removeOldest(strings: &strings) }
    }

    /// Up to `maximum` observations, newest first (-1 = all), rebuilt from records.
    func observations(maximum: Int, strings: StringTable) -> [(id: Int64, observation: Observation)] {
        var result: [(Int64, Observation)] = []
        let limit = maximum < 0 ? count : min(maximum, count)
        result.reserveCapacity(limit)
        var chunkIndex = chunks.count - 1
        while chunkIndex >= head && result.count < limit {
            let chunk = chunks[chunkIndex]
            var record = chunk.end - 1
            while record >= chunk.start && result.count < limit {
                result.append((chunk.id(at: record), Self.rebuild(chunk, record, strings: strings)))
                record -= 1
            }
            chunkIndex -= 1
        }
        return result
    }

    /// The newest observation's geometry and receive time; nil when the history is empty.
    var newest: (geometry: Point?, receivedAt: Int64)? {
        guard count > 0, let chunk = chunks.last, chunk.end > chunk.start else { return nil }
        return (Self.geometry(chunk, chunk.end - 1), chunk.receivedAt(at: chunk.end - 1))
    }

    private static func rebuild(_ chunk: HistoryChunk, _ record: Int, strings: StringTable) -> Observation {
        let attributes = chunk.attributeWords(at: record).map { PackedValue.unpack($0, strings: strings) }
        return Observation(geometry: geometry(chunk, record), attributes: attributes, receivedAt: chunk.receivedAt(at: record))
    }

    private static func geometry(_ chunk: HistoryChunk, _ record: Int) -> Point? {
        let xWord = chunk.word(at: record, 2)
        guard PackedValue.tag(xWord) != PackedValue.nullTag else { return nil }
        var geometry = Point(x: Double(bitPattern: xWord), y: Double(bitPattern: chunk.word(at: record, 3)), wkid: chunk.layout.wkid)
        if chunk.layout.hasZM {
            let z = chunk.word(at: record, 4)
            let m = chunk.word(at: record, 5)
            if PackedValue.tag(z) != PackedValue.nullTag { geometry.z = Double(bitPattern: z) }
            if PackedValue.tag(m) != PackedValue.nullTag { geometry.m = Double(bitPattern: m) }
        }
        return geometry
    }
}
