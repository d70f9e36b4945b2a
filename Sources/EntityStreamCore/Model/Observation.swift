/// One decoded observation: a point, its attribute values aligned to a
/// ``Schema``, and when it was received.
///
/// `attributes` may be shorter than the schema (fields the message did not
/// carry, or fields learned later); missing values read as ``AttributeValue/null``
/// through ``attribute(_:)``.
///
/// ``source`` optionally points at the service's own text for the geometry
/// and attributes (inside the received message, not a copy), so output can
/// copy it instead of formatting the values again; changing ``geometry`` or
/// ``attributes`` drops it, and it takes no part in equality.
public struct Observation: Sendable, Hashable {
    /// Nil when the feature's geometry was absent or JSON `null`.
    public var geometry: Point? {
        didSet { source = nil }
    }
    public var attributes: [AttributeValue] {
        didSet { source = nil }
    }
    /// Receive time, epoch milliseconds, from the injected clock.
    public var receivedAt: Int64
    /// The geometry and attributes text exactly as the service sent them,
    /// when the decoder kept a reference to it.
    public var source: SourceText?

    public init(geometry: Point?, attributes: [AttributeValue], receivedAt: Int64, source: SourceText? = nil) {
        self.geometry = geometry
        self.attributes = attributes
        self.receivedAt = receivedAt
        self.source = source
    }

    public static func == (lhs: Observation, rhs: Observation) -> Bool {
        lhs.geometry == rhs.geometry && lhs.attributes == rhs.attributes && lhs.receivedAt == rhs.receivedAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(geometry)
        hasher.combine(attributes)
        hasher.combine(receivedAt)
    }

    /// The value of field `index`, or null when the observation does not carry it.
    @inlinable public func attribute(_ index: Int) -> AttributeValue {
        index < attributes.count ? attributes[index] : .null
    }
}
