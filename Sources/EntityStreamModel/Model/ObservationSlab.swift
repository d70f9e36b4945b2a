/// A block of memory a decoder fills with what its observations hold: their
/// attribute values and their source text, back to back, in arrival order.
///
/// Decoded observations refer to a range of it instead of owning an array
/// each: one allocation serves a few hundred observations, and the memory is
/// freed, on whichever thread, when the last observation referring to it
/// goes. An observation queued for output keeps its slab alive, so a queue
/// pins about the size of its own observations (slabs are filled and
/// released in order).
///
/// Written only by the one decoder that filled it, and only past what it has
/// handed out (ranges handed out never change again). `@unchecked Sendable`
/// for that reason: readers on other threads only read finished ranges.
public final class ObservationSlab: @unchecked Sendable {
    /// Text bytes per slab: enough for a few hundred observations.
    public static let standardTextCapacity = 64 * 1024
    /// Attribute values per slab: about as many observations as the text holds.
    public static let standardValueCapacity = 2_048

    let base: UnsafeMutableRawPointer
    let capacity: Int
    private(set) var used = 0
    let values: UnsafeMutablePointer<AttributeValue>
    let valueCapacity: Int
    private(set) var valueCount = 0

    init(textCapacity: Int, valueCapacity: Int) {
        capacity = textCapacity
        base = .allocate(byteCount: max(textCapacity, 1), alignment: 1)
        self.valueCapacity = valueCapacity
        values = .allocate(capacity: max(valueCapacity, 1))
    }

    deinit {
        values.deinitialize(count: valueCount)
        values.deallocate()
        base.deallocate()
    }

    /// Text bytes still free.
    var remaining: Int { capacity - used }
    /// Value slots still free.
    var remainingValues: Int { valueCapacity - valueCount }

    /// A range of values handed out (valid while the slab is).
    func values(start: Int32, count: Int32) -> UnsafeBufferPointer<AttributeValue> {
        UnsafeBufferPointer(start: values + Int(start), count: Int(count))
    }

    /// Copies `geometry` then `attributes` (each optional) and returns where they are.
    func append(geometry: UnsafeRawBufferPointer?, attributes: UnsafeRawBufferPointer?) -> SourceTextRange {
        let start = used
        if let geometry, let address = geometry.baseAddress {
            (base + used).copyMemory(from: address, byteCount: geometry.count)
            used += geometry.count
        }
        if let attributes, let address = attributes.baseAddress {
            (base + used).copyMemory(from: address, byteCount: attributes.count)
            used += attributes.count
        }
        return SourceTextRange(start: Int32(start), geometryCount: Int32(geometry?.count ?? -1), attributesCount: Int32(attributes?.count ?? -1))
    }

    /// Moves `newValues` (at most ``remainingValues``) in, leaving nulls in
    /// their place, and returns where they start. Moved, not copied: a copy
    /// retains every string, and clearing the source releases it again.
    func append(movingFrom newValues: UnsafeMutableBufferPointer<AttributeValue>) -> Int {
        precondition(newValues.count <= remainingValues, "ObservationSlab: no room for \(newValues.count) values")
        let start = valueCount
        if let address = newValues.baseAddress {
            (values + start).moveInitialize(from: address, count: newValues.count)
            address.initialize(repeating: .null, count: newValues.count)
        }
        valueCount += newValues.count
        return start
    }
}
