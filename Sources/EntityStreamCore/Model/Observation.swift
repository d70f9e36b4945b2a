/// One decoded observation: a point, its attribute values aligned to a
/// ``Schema``, and when it was received.
///
/// `attributes` may be shorter than the schema (fields the message did not
/// carry, or fields learned later); missing values read as ``AttributeValue/null``
/// through ``attribute(_:)``.
public struct Observation: Sendable, Hashable {
    /// Nil when the feature's geometry was absent or JSON `null`.
    public var geometry: Point?
    public var attributes: [AttributeValue]
    /// Receive time, epoch milliseconds, from the injected clock.
    public var receivedAt: Int64

    public init(geometry: Point?, attributes: [AttributeValue], receivedAt: Int64) {
        self.geometry = geometry
        self.attributes = attributes
        self.receivedAt = receivedAt
    }

    /// The value of field `index`, or null when the observation does not carry it.
    @inlinable public func attribute(_ index: Int) -> AttributeValue {
        index < attributes.count ? attributes[index] : .null
    }
}
