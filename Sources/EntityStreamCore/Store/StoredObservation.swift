import EntityStreamModel
import EntityStreamWhere
/// One stored observation as a scan visits it: a view onto its packed
/// record, read without rebuilding the observation.
///
/// It is an ``AttributeRow``, so where clauses and statistics read its
/// values directly. It points into the store's memory and is valid only
/// during the call that hands it over: keep ``observation()`` (a full copy)
/// or the values you need, never the view itself.
public struct StoredObservation: IdentityKeyedRow {
    /// The entity it belongs to.
    public var entity: EntityReference { entityReference.pointee }
    let entityReference: UnsafePointer<EntityReference>
    /// The store's observation id (arrival order).
    public let id: Int64
    /// When it was received, epoch ms.
    public let receivedAt: Int64
    let record: UnsafePointer<UInt64>
    let attributeBase: Int
    public let attributeCount: Int
    let hasZM: Bool
    let wkid: Int?
    let strings: UnsafeBufferPointer<String>

    /// The value of field `fieldIndex`, or null when the record does not carry it.
    public func value(at fieldIndex: Int) -> AttributeValue {
        guard fieldIndex >= 0, fieldIndex < attributeCount else { return .null }
        return PackedValue.unpack(record[attributeBase + fieldIndex], strings: strings)
    }

    /// A word whose equality implies equality of the value at `fieldIndex`
    /// within one store (strings are interned): cheap group keys.
    public func identityWord(at fieldIndex: Int) -> UInt64 {
        guard fieldIndex >= 0, fieldIndex < attributeCount else { return PackedValue.null }
        return PackedValue.identity(record[attributeBase + fieldIndex])
    }

    /// The point, if the observation has one.
    public var point: Point? {
        let x = record[2]
        guard PackedValue.tag(x) != PackedValue.nullTag else { return nil }
        var point = Point(x: Double(bitPattern: x), y: Double(bitPattern: record[3]), wkid: wkid)
        if hasZM {
            if PackedValue.tag(record[4]) != PackedValue.nullTag { point.z = Double(bitPattern: record[4]) }
            if PackedValue.tag(record[5]) != PackedValue.nullTag { point.m = Double(bitPattern: record[5]) }
        }
        return point
    }

    /// The observation rebuilt in full (geometry, attributes, receive time).
    public func observation() -> Observation {
        var attributes: [AttributeValue] = []
        attributes.reserveCapacity(attributeCount)
        for index in 0..<attributeCount { attributes.append(value(at: index)) }
        return Observation(geometry: point, attributes: attributes, receivedAt: receivedAt)
    }
}
