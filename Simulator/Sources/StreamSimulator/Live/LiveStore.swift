import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures

/// Read access to a live entity store: the consistent snapshots (see
/// `EntityStore.snapshot()`) a relay's layers and hot-spot task answer from,
/// one per request, while ingestion goes on.
public struct LiveStore: Sendable {
    /// The store's contents as of now, and when that was (epoch ms).
    public var snapshot: @Sendable () async -> (contents: StoreContents, asOf: Int64)

    public init(snapshot: @escaping @Sendable () async -> (contents: StoreContents, asOf: Int64)) {
        self.snapshot = snapshot
    }
}

/// How a store's observations become rows of a feature layer: `OBJECTID`
/// (the store's observation id, or the entity id for latest positions),
/// then every field of the stream's schema (an object-id typed field of the
/// stream becomes an integer, so the layer has one object id), then
/// `received` (the receive time, a date). The time fields are the stream's
/// start (and end) time fields when they are dates, else `received`: the
/// same time the store's own queries use (`ObservationTimeKey.automatic`).
/// Name clashes get `_1`, `_2`, … A value type.
struct StoreLayerColumns: Sendable {
    /// The layer's schema.
    let schema: Schema
    let objectIDIndex = 0
    /// Where `received` is.
    let receivedIndex: Int
    /// The stream's fields (the store schema's, in order, from layer index 1).
    let storeFieldCount: Int
    /// The store's time key matching the layer's time fields.
    let timeKey: ObservationTimeKey
    let startTimeIndex: Int
    let endTimeIndex: Int?

    init(store: Schema) {
        var fields: [Field] = []
        var taken = Set(store.fields.map { Schema.fold($0.name) })
        func unique(_ base: String) -> String {
            var name = base
            var suffix = 1
            while taken.contains(Schema.fold(name)) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            taken.insert(Schema.fold(name))
            return name
        }
        let objectID = unique("OBJECTID")
        fields.append(Field(name: objectID, type: .objectID, nullable: false))
        for field in store.fields {
            var copy = field
            if copy.type == .objectID { copy.type = .integer }
            fields.append(copy)
        }
        let received = unique("received")
        fields.append(Field(name: received, type: .date, alias: "Received"))
        storeFieldCount = store.fields.count
        receivedIndex = fields.count - 1
        if let start = store.startTimeIndex, store.fields[start].type == .date {
            let end = store.endTimeIndex.flatMap { store.fields[$0].type == .date ? $0 : nil }
            timeKey = .field(start: start, end: end)
            startTimeIndex = start + 1
            endTimeIndex = end.map { $0 + 1 }
        } else {
            timeKey = .received
            startTimeIndex = fields.count - 1
            endTimeIndex = nil
        }
        var schema = Schema(fields: fields)
        schema.trackIDIndex = store.trackIDIndex.map { $0 + 1 }
        schema.startTimeIndex = startTimeIndex
        schema.endTimeIndex = endTimeIndex
        self.schema = schema
    }

    /// A builder for a point layer `name` in `wkid`.
    func builder(name: String, wkid: Int) -> FeatureTableBuilder {
        do {
            return try FeatureTableBuilder(name: name, schema: schema, objectIDFieldIndex: objectIDIndex, assignsObjectIDs: false,
                                           geometryType: .point, spatialReference: wkid, startTimeFieldIndex: startTimeIndex,
                                           endTimeFieldIndex: endTimeIndex)
        } catch {
            preconditionFailure("the store layer's schema is valid by construction: \(error)")
        }
    }

    /// Appends one row: `id`, the values of `row` for the stream's fields, the receive time.
    func append(to builder: inout FeatureTableBuilder, id: Int64, geometry: Point?, row: some AttributeRow, receivedAt: Int64, wkid: Int) {
        var values: [AttributeValue] = []
        values.reserveCapacity(schema.fields.count)
        values.append(.int(id))
        for index in 0..<storeFieldCount { values.append(row.value(at: index)) }
        values.append(.date(milliseconds: receivedAt))
        var point = geometry
        if let given = point, let from = given.wkid, from != wkid, let target = SpatialReference(code: wkid) {
            point = (try? given.converted(to: target)) ?? given
        }
        if (try? builder.append(geometry: point, values: values)) == nil {
            // A time field holding something other than a date: kept with the time null.
            values[startTimeIndex] = .null
            if let end = endTimeIndex { values[end] = .null }
            try? builder.append(geometry: point, values: values)
        }
    }
}
