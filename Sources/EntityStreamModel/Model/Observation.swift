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
    private var storage: Storage

    /// Where the attribute values and the source text are. A decoded
    /// observation holds one reference, its slab: every copy of an
    /// observation (the store's events, the bus, the writer) retains and
    /// releases what it holds.
    private enum Storage: Sendable {
        case owned([AttributeValue], SourceText?)
        /// `count` values from `start` in the slab, and the text at `text` there when kept.
        case slab(ObservationSlab, start: Int32, count: Int32, text: SourceTextRange?)
    }

    public init(geometry: Point?, attributes: [AttributeValue], receivedAt: Int64, source: SourceText? = nil) {
        self.geometry = geometry
        self.storage = .owned(attributes, source)
        self.receivedAt = receivedAt
    }

    /// A decoded observation whose `count` values start at `start` in `slab`,
    /// as does its source text when `text` is not nil.
    init(geometry: Point?, slab: ObservationSlab, start: Int, count: Int, text: SourceTextRange?, receivedAt: Int64) {
        self.geometry = geometry
        self.storage = .slab(slab, start: Int32(start), count: Int32(count), text: text)
        self.receivedAt = receivedAt
    }

    /// The geometry and attributes text exactly as the service sent them,
    /// when the decoder kept a copy of it.
    public var source: SourceText? {
        get {
            switch storage {
            case .owned(_, let source): return source
            case .slab(let slab, _, _, let text): return text.map { SourceText(slab: slab, range: $0) }
            }
        }
        set {
            switch storage {
            case .owned(let values, _):
                storage = .owned(values, newValue)
            case .slab(let slab, let start, let count, _):
                if let newValue, newValue.slab !== slab {
                    storage = .owned(attributes, newValue)
                } else {
                    storage = .slab(slab, start: start, count: count, text: newValue?.range)
                }
            }
        }
    }

    /// Calls `body` with the source text's geometry and attributes members
    /// (each nil when the feature had none) and returns its result; nil,
    /// without calling it, when there is no source text. Reads in place,
    /// without making a ``SourceText`` (the writer does this for every line).
    public func withSourceMembers<Result>(_ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result? {
        switch storage {
        case .owned(_, let source):
            guard let source else { return nil }
            return try source.withGeometry { geometry in try source.withAttributes { attributes in try body(geometry, attributes) } }
        case .slab(let slab, _, _, let text):
            guard let text else { return nil }
            return try withExtendedLifetime(slab) { try body(text.geometry(in: slab), text.attributes(in: slab)) }
        }
    }

    /// The bytes of the source text (0 without one), read without making a ``SourceText``.
    package var sourceByteCount: Int {
        switch storage {
        case .owned(_, let source): return source?.byteCount ?? 0
        case .slab(_, _, _, let text): return text?.byteCount ?? 0
        }
    }

    /// The attribute values, aligned to the schema. Reading makes an array
    /// for a decoded observation; prefer ``attribute(_:)`` in loops.
    public var attributes: [AttributeValue] {
        get {
            switch storage {
            case .owned(let values, _): return values
            case .slab(let slab, let start, let count, _):
                return Array(slab.values(start: start, count: count))
            }
        }
        set {
            storage = .owned(newValue, nil)
        }
        _modify {
            var values = attributes
            storage = .owned([], nil)   // the array is uniquely held while it is mutated
            defer { storage = .owned(values, nil) }
            yield &values
        }
    }

    /// How many attribute values the observation carries.
    public var attributeCount: Int {
        switch storage {
        case .owned(let values, _): return values.count
        case .slab(_, _, let count, _): return Int(count)
        }
    }

    /// The value of field `index`, or null when the observation does not carry it.
    public func attribute(_ index: Int) -> AttributeValue {
        switch storage {
        case .owned(let values, _): return index < values.count ? values[index] : .null
        case .slab(let slab, let start, let count, _): return index < Int(count) ? slab.values(start: start, count: count)[index] : .null
        }
    }

    /// Calls `body` with the attribute values in place (no array is made).
    public func withAttributeValues<Result>(_ body: (UnsafeBufferPointer<AttributeValue>) throws -> Result) rethrows -> Result {
        switch storage {
        case .owned(let values, _): return try values.withUnsafeBufferPointer(body)
        case .slab(let slab, let start, let count, _):
            return try withExtendedLifetime(slab) { try body(slab.values(start: start, count: count)) }
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
