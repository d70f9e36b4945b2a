import EntityStreamModel
import EntityStreamWhere
/// Scans of the stored history: every observation (not only an entity's
/// latest) matching an ``ObservationScan``, visited in place.
extension StoreContents {
    /// Visits every stored observation matching `scan`, entity by entity (by
    /// entity id), oldest first within an entity, until `visit` returns false.
    ///
    /// Whole chunks are skipped when their zone maps cannot match the time
    /// extent or envelope (an index: work follows what can match, not the
    /// store's size, when the data's times are roughly in order per track);
    /// the rest are checked record by record on the packed words, without
    /// rebuilding observations. The ``StoredObservation`` handed to `visit`
    /// is valid only during that call. Returns the number of observations
    /// visited.
    @discardableResult
    public func scan(_ scan: ObservationScan, _ visit: (StoredObservation) throws -> Bool) rethrows -> Int {
        try self.scan(scan, slots: scanSlots(scan), visit)
    }

    /// Visits part `part` (0-based) of `parts` of what ``scan(_:_:)``
    /// visits: the entities, in entity-id order, are cut into `parts` runs
    /// holding about equal numbers of stored observations, and this part
    /// scans one run. Together the parts visit exactly the observations a
    /// whole scan visits, each once, so tasks can scan one snapshot in
    /// parallel (the contents are an immutable value). `parts` is clamped
    /// to 1…4096; a `part` outside `0..<parts` visits nothing.
    @discardableResult
    public func scan(_ scan: ObservationScan, part: Int, of parts: Int, _ visit: (StoredObservation) throws -> Bool) rethrows -> Int {
        let parts = min(max(1, parts), 4096)
        guard part >= 0, part < parts else { return 0 }
        let slots = scanSlots(scan)
        var total = 0
        for slot in slots { total &+= entities[slot].history.count }
        // Run `p` holds the entities whose observations start before (p + 1) · total / parts.
        let from = part == 0 ? 0 : total / parts * part + total % parts * part / parts
        let to = part == parts - 1 ? Int.max : total / parts * (part + 1) + total % parts * (part + 1) / parts
        var selected: [Int] = []
        var before = 0
        for slot in slots {
            if before >= from && before < to { selected.append(slot) }
            before &+= entities[slot].history.count
        }
        return try self.scan(scan, slots: selected, visit)
    }

    /// The live slots a scan visits, in entity-id order.
    private func scanSlots(_ scan: ObservationScan) -> [Int] {
        var slots: [Int] = []
        if let trackIDs = scan.trackIDs {
            for trackID in trackIDs { if let slot = slot(of: trackID) { slots.append(slot) } }
        } else {
            for slot in entities.indices where entities[slot].isLive { slots.append(slot) }
        }
        slots.sort { entities[$0].reference.entityID < entities[$1].reference.entityID }
        return slots
    }

    private func scan(_ scan: ObservationScan, slots: [Int], _ visit: (StoredObservation) throws -> Bool) rethrows -> Int {
        var visited = 0
        try strings.withUnsafeBufferPointer { strings in
            let predicate = scan.whereClause.flatMap { $0.isTautology ? nil : PackedPredicate($0, strings: strings) }
            for slot in slots {
                let entity = entities[slot]
                let stop = try withUnsafePointer(to: entity.reference) { reference -> Bool in
                    for chunk in entity.history.liveChunks {
                        guard Self.mayMatch(chunk, scan) else { continue }
                        let keepGoing = try chunk.withWords { words -> Bool in
                            try Self.scanChunk(chunk, words: words, entity: reference, strings: strings, scan: scan, predicate: predicate) { record in
                                visited += 1
                                return try visit(record)
                            }
                        }
                        if !keepGoing { return true }
                    }
                    return false
                }
                if stop { break }
            }
        }
        return visited
    }

    /// Counts the stored observations matching `scan` (`returnCountOnly`).
    public func count(_ scan: ObservationScan) -> Int {
        self.scan(scan) { _ in true }
    }

    private func slot(of trackID: AttributeValue) -> Int? {
        guard let slot = slotsByTrack[trackID], entities[slot].isLive else { return nil }
        return slot
    }

    private static func mayMatch(_ chunk: HistoryChunk, _ scan: ObservationScan) -> Bool {
        if !scan.timeExtent.isUnbounded {
            switch scan.timeKey {
            case .received:
                if !chunk.zone.mayMatch(scan.timeExtent, key: .received) { return false }
            case .field(let start, let end):
                if chunk.timeFields.start == start, end == nil || chunk.timeFields.end == end,
                   !chunk.zone.mayMatch(scan.timeExtent, key: scan.timeKey) { return false }
            }
        }
        if let envelope = scan.envelope, envelope.wkid == nil || chunk.layout.wkid == nil || envelope.wkid == chunk.layout.wkid {
            if !chunk.zone.mayContain(envelope) { return false }
        }
        return true
    }

    /// Checks the chunk's live records one by one; false when `visit` asked to stop.
    private static func scanChunk(_ chunk: HistoryChunk, words: UnsafeBufferPointer<UInt64>, entity: UnsafePointer<EntityReference>,
                                  strings: UnsafeBufferPointer<String>, scan: ObservationScan, predicate: PackedPredicate?,
                                  _ visit: (StoredObservation) throws -> Bool) rethrows -> Bool {
        guard let base = words.baseAddress else { return true }
        let layout = chunk.layout
        let stride = layout.stride
        let attributeBase = 4 + (layout.hasZM ? 2 : 0)
        let extent = scan.timeExtent
        let checksTime = !extent.isUnbounded
        for index in chunk.start..<chunk.end {
            let record = base + index * stride
            if checksTime {
                switch scan.timeKey {
                case .received:
                    if !extent.contains(Int64(bitPattern: record[1])) { continue }
                case .field(let start, let end):
                    guard start < layout.attributeCount,
                          let from = PackedValue.milliseconds(record[attributeBase + start], strings: strings) else { continue }
                    var to = from
                    if let end, end < layout.attributeCount,
                       let until = PackedValue.milliseconds(record[attributeBase + end], strings: strings) { to = max(until, from) }
                    if !extent.overlaps(from: from, to: to) { continue }
                }
            }
            if let envelope = scan.envelope {
                guard PackedValue.tag(record[2]) != PackedValue.nullTag else { continue }
                let point = Point(x: Double(bitPattern: record[2]), y: Double(bitPattern: record[3]), wkid: layout.wkid)
                if !envelope.contains(point, assuming: nil) { continue }
            }
            if let predicate, !predicate.matches(record + attributeBase, count: layout.attributeCount) { continue }
            let row = StoredObservation(entityReference: entity, id: Int64(bitPattern: record[0]), receivedAt: Int64(bitPattern: record[1]),
                                        record: record, attributeBase: attributeBase, attributeCount: layout.attributeCount,
                                        hasZM: layout.hasZM, wkid: layout.wkid, strings: strings)
            if try !visit(row) { return false }
        }
        return true
    }
}
