/// One decoded observation: a point, its attribute values aligned to a
/// ``Schema``, and when it was received.
///
/// `attributes` may be shorter than the schema (fields the message did not
/// carry, or fields learned later); missing values read as ``AttributeValue/null``
/// through ``attribute(_:)``.
///
/// ``source`` optionally points at the service's own text for the geometry
/// and attributes (a copy kept beside the values), so output can copy it
/// instead of formatting the values again; changing ``geometry`` or
/// ``attributes`` drops it, and it takes no part in equality.
///
/// The values of a decoded observation live in its decoder's
/// ``ObservationSlab`` (no array of its own: that allocation, freed on
/// another thread, cost more than decoding the message). Read them with
/// ``attribute(_:)``, ``attributeCount`` or ``withAttributeValues(_:)``;
/// ``attributes`` makes an array of them. Setting or mutating `attributes`
/// gives the observation values of its own.
public struct Observation: Sendable, Hashable {
    /// Nil when the feature's geometry was absent or JSON `null`.
    public var geometry: Point? {
        didSet { source = nil }
    }
    /// Receive time, epoch milliseconds, from the injected clock.
    public var receivedAt: Int64
    /// The geometry and attributes text exactly as the service sent them,
    /// when the decoder kept a copy of it.
    public var source: SourceText?
    private var values: Values

    /// Where the attribute values are.
    private enum Values: Sendable {
        case owned([AttributeValue])
        case slab(ObservationSlab, start: Int32, count: Int32)
    }

    public init(geometry: Point?, attributes: [AttributeValue], receivedAt: Int64, source: SourceText? = nil) {
        self.geometry = geometry
        self.values = .owned(attributes)
        self.receivedAt = receivedAt
        self.source = source
    }

    /// A decoded observation whose `count` values start at `start` in `slab`.
    init(geometry: Point?, slab: ObservationSlab, start: Int, count: Int, receivedAt: Int64, source: SourceText?) {
        self.geometry = geometry
        self.values = .slab(slab, start: Int32(start), count: Int32(count))
        self.receivedAt = receivedAt
        self.source = source
    }

    /// The attribute values, aligned to the schema. Reading makes an array
    /// for a decoded observation; prefer ``attribute(_:)`` in loops.
    public var attributes: [AttributeValue] {
        get {
            switch values {
            case .owned(let array): return array
            case .slab(let slab, let start, let count):
                return Array(UnsafeBufferPointer(start: slab.values + Int(start), count: Int(count)))
            }
        }
        set {
            values = .owned(newValue)
            source = nil
        }
        _modify {
            var array = attributes
            values = .owned([])   // the array is uniquely held while it is mutated
            source = nil
            defer { values = .owned(array) }
            yield &array
        }
    }

    /// How many attribute values the observation carries.
    public var attributeCount: Int {
        switch values {
        case .owned(let array): return array.count
        case .slab(_, _, let count): return Int(count)
        }
    }

    /// The value of field `index`, or null when the observation does not carry it.
    public func attribute(_ index: Int) -> AttributeValue {
        switch values {
        case .owned(let array): return index < array.count ? array[index] : .null
        case .slab(let slab, let start, let count): return index < Int(count) ? slab.values[Int(start) + index] : .null
        }
    }

    /// Calls `body` with the attribute values in place (no array is made).
    public func withAttributeValues<Result>(_ body: (UnsafeBufferPointer<AttributeValue>) throws -> Result) rethrows -> Result {
        switch values {
        case .owned(let array): return try array.withUnsafeBufferPointer(body)
        case .slab(let slab, let start, let count):
            return try withExtendedLifetime(slab) {
                try body(UnsafeBufferPointer(start: slab.values + Int(start), count: Int(count)))
            }
        }
    }

    public static func == (lhs: Observation, rhs: Observation) -> Bool {
        guard lhs.geometry == rhs.geometry, lhs.receivedAt == rhs.receivedAt else { return false }
        return lhs.withAttributeValues { left in rhs.withAttributeValues { right in left.elementsEqual(right) } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(geometry)
        withAttributeValues { values in
            hasher.combine(values.count)
            for value in values { hasher.combine(value) }
        }
        hasher.combine(receivedAt)
    }
}
