import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

extension FeatureQuery {
    /// The query as REST parameters (unencoded name/value pairs, in a fixed
    /// order), for a GET query string or a POST form: `f` always, `where`
    /// always (`1=1` when unrestricted), `outFields` (`*` for all; omitted for
    /// "object id only"), and every other parameter only when it differs from
    /// ArcGIS's default. ``init(parameters:)`` reads the result back to an
    /// equal query (apart from `where` `1=1` ↔ nil). The token is not a
    /// query parameter; the client adds it.
    public var parameters: [(String, String)] {
        var items: [(String, String)] = [("f", format.rawValue), ("where", effectiveWhereClause ?? "1=1")]
        if let objectIDs { items.append(("objectIds", objectIDs.map(String.init).joined(separator: ","))) }
        if let time { items.append(("time", time.restParameter)) }
        if let geometry {
            let (text, type) = geometryParameter(geometry)
            items.append(("geometry", text))
            items.append(("geometryType", type))
            if let inSR = SpatialReference(code: geometry.wkid) { items.append(("inSR", inSR.parameterText)) }
            items.append(("spatialRel", spatialRelationship.rawValue))
        }
        if let outFields {
            if !outFields.isEmpty { items.append(("outFields", outFields.joined(separator: ","))) }
        } else {
            items.append(("outFields", "*"))
        }
        if !returnGeometry { items.append(("returnGeometry", "false")) }
        if let outSR = SpatialReference(code: outSpatialReference) { items.append(("outSR", outSR.parameterText)) }
        if !orderBy.isEmpty { items.append(("orderByFields", orderBy.map(\.description).joined(separator: ","))) }
        if let resultOffset { items.append(("resultOffset", String(resultOffset))) }
        if let resultRecordCount { items.append(("resultRecordCount", String(resultRecordCount))) }
        if let maxRecordCountFactor { items.append(("maxRecordCountFactor", String(maxRecordCountFactor))) }
        if returnCountOnly { items.append(("returnCountOnly", "true")) }
        if returnIDsOnly { items.append(("returnIdsOnly", "true")) }
        if let outStatistics {
            var writer = JSONWriter(capacity: 256)
            writer.append(.array(outStatistics.map(\.json)))
            items.append(("outStatistics", String(decoding: writer.bytes, as: UTF8.self)))
        }
        if !groupByFieldsForStatistics.isEmpty { items.append(("groupByFieldsForStatistics", groupByFieldsForStatistics.joined(separator: ","))) }
        if let havingClause { items.append(("having", havingClause)) }
        if returnDistinctValues { items.append(("returnDistinctValues", "true")) }
        if let geometryPrecision { items.append(("geometryPrecision", String(geometryPrecision))) }
        if let quantization { items.append(("quantizationParameters", quantization.parameter)) }
        if resultType != .none { items.append(("resultType", resultType.rawValue)) }
        if let distance { items.append(("distance", String(distance))) }
        if let distanceUnit { items.append(("units", distanceUnit.rawValue)) }
        if returnExtentOnly { items.append(("returnExtentOnly", "true")) }
        if returnQueryExtent { items.append(("returnQueryExtent", "true")) }
        if let text { items.append(("text", text)) }
        return items
    }

    /// The `geometry` parameter's text and its `geometryType`: the polygon's
    /// rings, a point (an envelope of no size), or the envelope.
    private func geometryParameter(_ geometry: Envelope) -> (String, String) {
        let object: JSONObject
        let type: String
        if let rings = polygonRings {
            object = JSONObject([("rings", .array(rings.map { ring in .array(ring.map { .array([.double($0.x), .double($0.y)]) }) }))])
            type = "esriGeometryPolygon"
        } else if geometry.xmin == geometry.xmax, geometry.ymin == geometry.ymax {
            object = JSONObject([("x", .double(geometry.xmin)), ("y", .double(geometry.ymin))])
            type = "esriGeometryPoint"
        } else {
            return (StreamFilter.envelopeJSON(geometry), "esriGeometryEnvelope")
        }
        var withReference = object
        if let reference = SpatialReference(code: geometry.wkid) { withReference.append(key: "spatialReference", value: reference.json) }
        var writer = JSONWriter(capacity: 128)
        writer.append(.object(withReference))
        return (String(decoding: writer.bytes, as: UTF8.self), type)
    }
}
