import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

/// Writes a ``FeatureQueryResult`` as a query response body, and single
/// features as Esri JSON or GeoJSON (for JSON-lines output of query results).
///
/// - `f=json`: `{"objectIdFieldName","globalIdFieldName","geometryType",
///   "spatialReference","fields","exceededTransferLimit","features":[{"attributes":{…},"geometry":{"x","y"}}]}`
///   (tables: no geometryType or spatialReference; features without a
///   geometry, or with `returnGeometry=false`, have no `geometry`). Dates are
///   epoch-millisecond numbers, as ArcGIS sends them.
/// - `f=geojson`: `{"type":"FeatureCollection","features":[{"type":"Feature","id":…,"geometry":{"type":"Point","coordinates":[x,y]},"properties":{…}}],
///   "properties":{"exceededTransferLimit":…}}` (null geometry: `null`).
/// - `f=pjson`: `f=json` indented (``JSONPrettyPrinter``).
/// - count: `{"count":N}`; ids: `{"objectIdFieldName":…,"objectIds":[…]}`;
///   statistics: `{"displayFieldName":"","fields":[…],"features":[{"attributes":{…}}]}`
///   with `"exceededTransferLimit":true` before `features` when more rows
///   remain (whatever the format, as ArcGIS answers these in JSON).
/// Stateless; output is valid JSON for any table (non-finite numbers become null).
public enum FeatureSetWriter {
    public static func write(_ result: FeatureQueryResult, format: FeatureQuery.Format) -> [UInt8] {
        var writer = JSONWriter(capacity: 16 * 1024)
        switch result {
        case .count(let count):
            writer.appendRaw("{\"count\":")
            writer.appendInt(Int64(count))
            writer.appendRaw("}")
        case .objectIDs(let fieldName, let ids):
            writer.appendRaw("{\"objectIdFieldName\":")
            writer.appendString(fieldName)
            writer.appendRaw(",\"objectIds\":[")
            for (index, id) in ids.enumerated() {
                if index > 0 { writer.appendRaw(",") }
                writer.appendInt(id)
            }
            writer.appendRaw("]}")
        case .statistics(let statistics):
            appendStatistics(statistics, to: &writer)
        case .extent(let extent, let wkid, let count):
            writer.appendRaw("{")
            if let count {
                writer.appendRaw("\"count\":")
                writer.appendInt(Int64(count))
                writer.appendRaw(",")
            }
            writer.appendRaw("\"extent\":")
            appendExtent(extent, wkid: wkid, to: &writer)
            writer.appendRaw("}")
        case .features(let selection):
            if format == .geojson {
                appendGeoJSONCollection(selection, to: &writer)
            } else {
                appendEsriFeatureSet(selection, to: &writer)
            }
        }
        return format == .pjson ? JSONPrettyPrinter.format(writer.bytes) : writer.bytes
    }

    // MARK: Esri JSON

    public static func appendEsriFeatureSet(_ selection: FeatureSelection, to writer: inout JSONWriter) {
        let table = selection.table
        let fields = table.schema.fields
        writer.appendRaw("{\"objectIdFieldName\":")
        writer.appendString(table.objectIDField.name)
        writer.appendRaw(",\"globalIdFieldName\":\"\"")
        if let geometryType = table.geometryType.esriName {
            writer.appendRaw(",\"geometryType\":")
            writer.appendString(selection.polygons == nil ? geometryType : "esriGeometryPolygon")
            if let reference = SpatialReference(code: selection.spatialReference) {
                writer.appendRaw(",\"spatialReference\":")
                writer.append(reference.json)
            }
        }
        if let quantization = selection.quantization {
            let (x, y) = quantization.translate
            writer.appendRaw(",\"transform\":{\"originPosition\":")
            writer.appendString(quantization.origin.rawValue)
            writer.appendRaw(",\"scale\":")
            writer.append(.array([.double(quantization.tolerance), .double(quantization.tolerance), .int(0), .int(0)]))
            writer.appendRaw(",\"translate\":")
            writer.append(.array([.double(x), .double(y), .int(0), .int(0)]))
            writer.appendRaw("}")
        }
        writer.appendRaw(",\"fields\":")
        writer.append(.array(selection.fieldIndices.map { fields[$0].esriJSON }))
        if selection.asksQueryExtent, table.geometryType.esriName != nil {
            writer.appendRaw(",\"extent\":")
            appendExtent(selection.queryExtent, wkid: selection.spatialReference, to: &writer)
        }
        writer.appendRaw(",\"exceededTransferLimit\":")
        writer.appendBool(selection.exceededTransferLimit)
        writer.appendRaw(",\"features\":[")
        for index in selection.rows.indices {
            if index > 0 { writer.appendRaw(",") }
            appendEsriFeature(at: index, of: selection, to: &writer)
        }
        writer.appendRaw("]}")
    }

    /// An extent object with its spatial reference; ArcGIS writes an empty
    /// one as `"NaN"` strings.
    static func appendExtent(_ extent: Envelope?, wkid: Int?, to writer: inout JSONWriter) {
        var box: JSONObject
        if let extent {
            box = JSONObject([("xmin", .double(extent.xmin)), ("ymin", .double(extent.ymin)), ("xmax", .double(extent.xmax)), ("ymax", .double(extent.ymax))])
        } else {
            box = JSONObject([("xmin", .string("NaN")), ("ymin", .string("NaN")), ("xmax", .string("NaN")), ("ymax", .string("NaN"))])
        }
        if let wkid { box.append(key: "spatialReference", value: LayerDescription.spatialReferenceJSON(wkid)) }
        writer.append(.object(box))
    }

    /// The page's `position`-th feature: `{"attributes":{…}[,"geometry":{"x":…,"y":…}]}`
    /// (the geometry without its own spatial reference: the FeatureSet names
    /// it; rounded to `geometryPrecision`, or integers on the quantization grid).
    public static func appendEsriFeature(at position: Int, of selection: FeatureSelection, to writer: inout JSONWriter) {
        let row = selection.rows[position]
        writer.appendRaw("{\"attributes\":")
        appendAttributes(row: row, of: selection, to: &writer)
        if selection.returnGeometry, let polygons = selection.polygons {
            guard row < polygons.rings.count else { writer.appendRaw("}"); return }
            writer.appendRaw(",\"geometry\":{\"rings\":")
            appendRings(polygons.rings[row], of: selection, reversed: false, to: &writer)
            writer.appendRaw("}")
        } else if selection.returnGeometry, var point = selection.outputGeometry(at: position) {
            writer.appendRaw(",\"geometry\":")
            if let quantization = selection.quantization {
                let (x, y) = quantization.quantize(point)
                writer.appendRaw("{\"x\":")
                writer.appendInt(x)
                writer.appendRaw(",\"y\":")
                writer.appendInt(y)
                writer.appendRaw("}")
            } else {
                point.wkid = nil
                writer.appendEsriGeometry(point)
            }
        }
        writer.appendRaw("}")
    }

    /// Polygon rings as nested coordinate arrays, rounded or quantized as
    /// the selection asks; `reversed` turns each ring around (GeoJSON's
    /// outer rings run counter-clockwise).
    static func appendRings(_ rings: [[AnalysisGeometry.Coordinate]], of selection: FeatureSelection, reversed: Bool, to writer: inout JSONWriter) {
        writer.appendRings(reversed ? rings.map { $0.reversed() } : rings) { writer, corner in
            if let quantization = selection.quantization {
                let (x, y) = quantization.quantize(Point(x: corner.x, y: corner.y))
                writer.appendInt(x)
                writer.appendRaw(",")
                writer.appendInt(y)
            } else {
                let digits = selection.geometryPrecision
                writer.appendDouble(digits.map { FeatureSelection.round(corner.x, digits: $0) } ?? corner.x)
                writer.appendRaw(",")
                writer.appendDouble(digits.map { FeatureSelection.round(corner.y, digits: $0) } ?? corner.y)
            }
        }
    }

    static func appendAttributes(row: Int, of selection: FeatureSelection, to writer: inout JSONWriter) {
        let fields = selection.table.schema.fields
        writer.appendRaw("{")
        for (index, field) in selection.fieldIndices.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendKey(fields[field].name)
            writer.append(selection.table.value(row: row, field: field))
        }
        writer.appendRaw("}")
    }

    // MARK: GeoJSON

    public static func appendGeoJSONCollection(_ selection: FeatureSelection, to writer: inout JSONWriter) {
        writer.appendRaw("{\"type\":\"FeatureCollection\",\"features\":[")
        for index in selection.rows.indices {
            if index > 0 { writer.appendRaw(",") }
            appendGeoJSONFeature(at: index, of: selection, to: &writer)
        }
        writer.appendRaw("],\"properties\":{\"exceededTransferLimit\":")
        writer.appendBool(selection.exceededTransferLimit)
        writer.appendRaw("}}")
    }

    /// The page's `position`-th feature as a GeoJSON Feature with the object
    /// id as `id` (coordinates in the selection's spatial reference, WGS84 for `f=geojson`).
    public static func appendGeoJSONFeature(at position: Int, of selection: FeatureSelection, to writer: inout JSONWriter) {
        let row = selection.rows[position]
        writer.appendRaw("{\"type\":\"Feature\",\"id\":")
        writer.appendInt(selection.table.objectID(at: row))
        writer.appendRaw(",\"geometry\":")
        if selection.returnGeometry, let polygons = selection.polygons, row < polygons.rings.count {
            writer.appendRaw("{\"type\":\"Polygon\",\"coordinates\":")
            appendRings(polygons.rings[row], of: selection, reversed: true, to: &writer)
            writer.appendRaw("}")
        } else {
            writer.appendGeoJSONPoint(selection.returnGeometry && selection.polygons == nil ? selection.outputGeometry(at: position) : nil, wgs84: false)
        }
        writer.appendRaw(",\"properties\":")
        appendAttributes(row: row, of: selection, to: &writer)
        writer.appendRaw("}")
    }

    // MARK: Statistics

    static func appendStatistics(_ statistics: FeatureStatisticsResult, to writer: inout JSONWriter) {
        writer.appendRaw("{\"displayFieldName\":\"\",\"fields\":")
        writer.append(.array(statistics.fields.map(\.esriJSON)))
        if statistics.exceededTransferLimit { writer.appendRaw(",\"exceededTransferLimit\":true") }
        writer.appendRaw(",\"features\":[")
        for (index, row) in statistics.rows.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendRaw("{\"attributes\":{")
            for (column, field) in statistics.fields.enumerated() {
                if column > 0 { writer.appendRaw(",") }
                writer.appendKey(field.name)
                writer.append(column < row.count ? row[column] : .null)
            }
            writer.appendRaw("}}")
        }
        writer.appendRaw("]}")
    }
}
