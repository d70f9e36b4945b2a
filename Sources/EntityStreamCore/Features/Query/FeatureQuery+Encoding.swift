import Projection

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
            items.append(("geometry", StreamFilter.envelopeJSON(geometry)))
            items.append(("geometryType", "esriGeometryEnvelope"))
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
        if let havingClause { items.append(("havingClause", havingClause)) }
        if returnDistinctValues { items.append(("returnDistinctValues", "true")) }
        return items
    }
}
