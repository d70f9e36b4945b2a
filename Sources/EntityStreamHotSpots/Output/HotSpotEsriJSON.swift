import EntityStreamCore
import EntityStreamModel

/// A hot-spot result as an Esri JSON feature set — the shape of ArcGIS's
/// `Output_Features` (and of a `query` answer): fields `OBJECTID`,
/// `SOURCE_ID` (the record number, or −1), the value field, `GiZScore`,
/// `GiPValue` (null when undefined), `Gi_Bin`, `NNeighbors`; point or
/// polygon geometry in the input's coordinates.
///
/// ``appendFeature(_:of:objectID:into:)`` writes one feature at a time into
/// a reusable ``JSONWriter``, so a caller can stream a million features
/// without building a document; ``featureSet(_:valueField:wkid:)`` writes the
/// whole document. Pure functions.
public enum HotSpotEsriJSON {
    /// The value field's name in the output: the aggregation's count field,
    /// else `valueField`.
    public static func valueFieldName(_ result: HotSpotResult, valueField: String) -> String {
        result.valueField ?? valueField
    }

    /// `esriGeometryPolygon` for a fishnet, else `esriGeometryPoint`.
    public static func geometryType(_ result: HotSpotResult) -> String {
        result.fishnet == nil ? "esriGeometryPoint" : "esriGeometryPolygon"
    }

    /// The `fields` array.
    public static func fields(_ result: HotSpotResult, valueField: String) -> JSONValue {
        func field(_ name: String, _ type: String, _ alias: String) -> JSONValue {
            .object(JSONObject([("name", .string(name)), ("type", .string(type)), ("alias", .string(alias))]))
        }
        let name = valueFieldName(result, valueField: valueField)
        return .array([
            field("OBJECTID", "esriFieldTypeOID", "OBJECTID"),
            field("SOURCE_ID", "esriFieldTypeInteger", "Source record"),
            field(name, result.valueField == nil ? "esriFieldTypeDouble" : "esriFieldTypeInteger", name),
            field("GiZScore", "esriFieldTypeDouble", "GiZScore Fixed Distance"),
            field("GiPValue", "esriFieldTypeDouble", "GiPValue Fixed Distance"),
            field("NNeighbors", "esriFieldTypeInteger", "Number of Neighbors"),
            field("Gi_Bin", "esriFieldTypeInteger", "Gi_Bin Fixed Distance"),
        ])
    }

    /// Appends `{"attributes":{…},"geometry":{…}}` for one feature.
    public static func appendFeature(_ feature: HotSpotFeature, of result: HotSpotResult, valueField: String,
                                     objectID: Int64, into writer: inout JSONWriter) {
        writer.appendRaw("{\"attributes\":{\"OBJECTID\":")
        writer.appendInt(objectID)
        writer.appendRaw(",\"SOURCE_ID\":")
        writer.appendInt(Int64(feature.recordNumber))
        writer.appendRaw(",")
        writer.appendKey(valueFieldName(result, valueField: valueField))
        if result.valueField == nil { writer.appendDouble(feature.value) } else { writer.appendInt(Int64(feature.value)) }
        writer.appendRaw(",\"GiZScore\":")
        if let z = feature.zScore { writer.appendDouble(z) } else { writer.appendNull() }
        writer.appendRaw(",\"GiPValue\":")
        if let p = feature.pValue { writer.appendDouble(p) } else { writer.appendNull() }
        writer.appendRaw(",\"NNeighbors\":")
        writer.appendInt(Int64(feature.neighborCount))
        writer.appendRaw(",\"Gi_Bin\":")
        writer.appendInt(Int64(feature.bin))
        writer.appendRaw("},\"geometry\":")
        switch result.geometry(of: feature) {
        case .point(let x, let y):
            writer.appendRaw("{\"x\":")
            writer.appendDouble(x)
            writer.appendRaw(",\"y\":")
            writer.appendDouble(y)
            writer.appendRaw("}")
        case .polygon(let ring):
            writer.appendRaw("{\"rings\":[[")
            for (index, corner) in ring.enumerated() {
                if index > 0 { writer.appendRaw(",") }
                writer.appendRaw("[")
                writer.appendDouble(corner[0])
                writer.appendRaw(",")
                writer.appendDouble(corner[1])
                writer.appendRaw("]")
            }
            writer.appendRaw("]]}")
        }
        writer.appendRaw("}")
    }

    /// The whole feature set: `{"geometryType", "spatialReference", "fields", "features"}`
    /// (`spatialReference` only when `wkid` is given). Object ids count from 1.
    public static func featureSet(_ result: HotSpotResult, valueField: String = "VALUE", wkid: Int? = nil) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + result.features.count * 160)
        writer.appendRaw("{\"geometryType\":")
        writer.appendString(geometryType(result))
        if let wkid {
            writer.appendRaw(",\"spatialReference\":{\"wkid\":")
            writer.appendInt(Int64(wkid))
            writer.appendRaw("}")
        }
        writer.appendRaw(",\"fields\":")
        writer.append(fields(result, valueField: valueField))
        writer.appendRaw(",\"features\":[")
        for (index, feature) in result.features.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            appendFeature(feature, of: result, valueField: valueField, objectID: Int64(index + 1), into: &writer)
        }
        writer.appendRaw("]}")
        return writer.bytes
    }
}
