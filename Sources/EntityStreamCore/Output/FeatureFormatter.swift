import EntityStreamProjection
import EntityStreamModel

/// Features for a GIS, what `--format geojson` and `--format csv` print on
/// stdout: each feature once, a stable set of properties, dates as ISO-8601
/// text, and coordinates a GIS places right.
///
/// - GeoJSON: one RFC 7946 Feature per line (GeoJSONSeq), coordinates in
///   WGS84 longitude/latitude converted through PROJ from whatever the
///   source holds; GDAL reads it as EPSG:4326 and `ogr2ogr -f GPKG` imports
///   it as it is. The Feature's `id` is the observation id, or the result's
///   position (1, 2, 3…) for analysis results.
/// - CSV: an RFC 4180 table, a header then one row per feature: `x`, `y`
///   (a polygon's centre), in ``coordinates`` (WGS84 unless the user chose
///   another reference), then the properties. `ogr2ogr -oo X_POSSIBLE_NAMES=x
///   -oo Y_POSSIBLE_NAMES=y` reads it.
///
/// Properties: the line's bookkeeping first, each named `es_…` so that no
/// feature property of the data is renamed by it (an attribute that is
/// itself named like one of them is written as `attribute_<name>`), then
/// the attributes.
/// - an observation: `es_track`, `es_entity`, `es_observation`,
///   `es_received` (the receive time), `es_primed`, every field of the
///   schema (null when absent), `es_raster` with `--enrich`;
/// - an analysis result (``AnalysisResult``, read as typed values): a
///   store observation's `es_track`, `es_entity`, `es_observation`,
///   `es_received`; an identify answer's `es_line`, `es_point_x`,
///   `es_point_y`, `es_point_sr`, `es_point_id`, `es_hint`, `es_error`
///   (the JSON line's members, an object flattened one level); then the
///   feature's attributes;
/// - a statistics record: its group fields then its statistics.
/// Every key a line has had is written on every later line (null when
/// absent), so the properties only ever grow; a CSV's columns are fixed by
/// its first row, and values of later keys are counted in
/// ``droppedValues``, never silently lost. Dates (date fields, values of
/// the date case, and the attributes a feature marks as dates) are
/// ISO-8601 UTC text, which GDAL reads as DateTime. A value type.
public struct FeatureFormatter: Sendable {
    public enum Kind: String, Sendable {
        case geojson, csv
    }

    public let kind: Kind
    /// The spatial reference of written coordinates: WGS84 for GeoJSON
    /// (always); for CSV WGS84 unless asked otherwise, nil meaning as the
    /// features carry them.
    public let coordinates: SpatialReference?
    public private(set) var schema: Schema
    /// Values (CSV) whose key had no column.
    public private(set) var droppedValues = 0

    private var observationKeys: [String] = []
    private var dateFields: [Bool] = []
    /// The schema fields a CSV's header has columns for (observations).
    private var observationColumns = 0
    private var observationRasterColumn = false
    private var order: [String] = []
    private var known: Set<String> = []
    private var columns: [String]?
    private var sequence = 0

    /// The bookkeeping keys of an observation.
    static let observationBookkeeping = ["es_track", "es_entity", "es_observation", "es_received", "es_primed"]

    public init(kind: Kind, schema: Schema, coordinates: SpatialReference? = .wgs84) {
        self.kind = kind
        self.coordinates = kind == .geojson ? .wgs84 : coordinates
        self.schema = schema
        rebuildKeys()
    }

    /// Adopts a grown schema (later fields join the GeoJSON properties; a
    /// CSV's columns stay those of its header).
    public mutating func updateSchema(_ schema: Schema) {
        guard schema != self.schema else { return }
        self.schema = schema
        rebuildKeys()
    }

    private mutating func rebuildKeys() {
        let reserved = Set(Self.observationBookkeeping + ["es_raster", "es_m"] + (kind == .csv ? ["x", "y"] : []))
        observationKeys = schema.fields.map { reserved.contains($0.name) ? "attribute_\($0.name)" : $0.name }
        dateFields = schema.fields.map { $0.type == .date }
    }

    /// True for the events that are features: observations, and analysis
    /// results that carry a feature or a statistics record.
    public static func isFeature(_ event: StreamEvent) -> Bool {
        switch event.payload {
        case .store(.observation): return true
        case .analysis(let analysis): return analysis.result?.isFeatureLine ?? false
        default: return false
        }
    }

    /// Appends `event`, which ``isFeature(_:)`` accepts, as one feature line (or CSV row).
    public mutating func append(_ event: StreamEvent, to writer: inout JSONWriter) {
        switch event.payload {
        case .store(.observation(let entity, let id, let observation)):
            appendObservation(entity: entity, id: id, observation: observation, event: event, to: &writer)
        case .analysis(let analysis):
            guard let result = analysis.result else { break }
            appendProperties(Self.properties(of: result), geometry: result.feature?.geometry, to: &writer)
        default:
            break
        }
    }

    // MARK: Observations

    private mutating func appendObservation(entity: EntityReference, id: Int64, observation: Observation, event: StreamEvent,
                                            to writer: inout JSONWriter) {
        let received = ISO8601Text.string(milliseconds: event.time)
        switch kind {
        case .geojson:
            writer.appendRaw("{\"type\":\"Feature\",\"id\":")
            writer.appendInt(id)
            writer.appendRaw(",\"geometry\":")
            writer.appendGeoJSONPoint(observation.geometry)
            writer.appendRaw(",\"properties\":{\"es_track\":")
            writer.append(entity.trackID)
            writer.appendRaw(",\"es_entity\":")
            writer.appendInt(entity.entityID)
            writer.appendRaw(",\"es_observation\":")
            writer.appendInt(id)
            writer.appendRaw(",\"es_received\":")
            writer.appendString(received)
            writer.appendRaw(",\"es_primed\":")
            writer.appendBool(event.primed)
            for index in observationKeys.indices {
                writer.appendRaw(",")
                writer.appendKey(observationKeys[index])
                Self.appendAttribute(observation.attribute(index), isDate: dateFields[index], to: &writer)
            }
            if let m = observation.geometry?.m {
                writer.appendRaw(",\"es_m\":")
                writer.appendDouble(m)
            }
            if let enrichment = event.enrichment {
                writer.appendRaw(",\"es_raster\":")
                writer.appendRaw(enrichment.rasterText)
            }
            writer.appendRaw("}}\n")
        case .csv:
            if columns == nil {
                var header = ["x", "y"] + Self.observationBookkeeping + observationKeys
                observationColumns = observationKeys.count
                observationRasterColumn = event.enrichment != nil
                if observationRasterColumn { header.append("es_raster") }
                columns = header
                writer.appendText(CSVText.record(header))
            }
            appendCoordinates(observation.geometry.map { .point($0) }, to: &writer)
            writer.appendRaw(",")
            Self.appendCell(entity.trackID, to: &writer)
            writer.appendRaw(",")
            writer.appendInt(entity.entityID)
            writer.appendRaw(",")
            writer.appendInt(id)
            writer.appendRaw(",")
            writer.appendText(received)
            writer.appendRaw(event.primed ? ",true" : ",false")
            for index in 0..<observationColumns {
                writer.appendRaw(",")
                Self.appendCell(index < observation.attributeCount ? observation.attribute(index) : .null, to: &writer)
            }
            for index in observationColumns..<max(observationColumns, observation.attributeCount) where !observation.attribute(index).isNull {
                droppedValues += 1
            }
            if observationRasterColumn {
                writer.appendRaw(",")
                if let enrichment = event.enrichment {
                    writer.appendText(CSVText.field(String(decoding: enrichment.rasterText, as: UTF8.self)))
                }
            } else if event.enrichment != nil {
                droppedValues += 1
            }
            writer.appendRaw("\r\n")
        }
    }

    /// Before a summary: a CSV table that got no row yet gets its header from
    /// the summary's ``AnalysisSummary/columns`` (a statistics job whose
    /// groups were all left out still prints its table's header).
    public mutating func appendHeader(from summary: AnalysisEvent, to writer: inout JSONWriter) {
        guard kind == .csv, columns == nil, let header = summary.summary?.columns else { return }
        columns = header
        writer.appendText(CSVText.record(header))
    }

    // MARK: Analysis results

    /// One property: its name, value and whether an integer value is an epoch-ms date.
    struct Property {
        var key: String
        var value: JSONValue
        var isDate: Bool
    }

    /// The properties of a result line, bookkeeping first (see the type's
    /// contract), from the result's typed values: a date is a value of the
    /// date case, or a feature attribute the feature marks as a date.
    static func properties(of result: AnalysisResult) -> [Property] {
        var properties: [Property] = []
        func add(_ key: String, _ value: JSONValue) { properties.append(Property(key: key, value: value, isDate: false)) }
        switch result {
        case .statistics(let record):
            for item in record.group + record.statistics {
                var isDate = false
                if case .date = item.value { isDate = true }
                properties.append(Property(key: item.name, value: item.value.jsonValue, isDate: isDate))
            }
            return properties
        case .feature:
            break
        case .observation(let row):
            add("es_track", row.entity.trackID.jsonValue)
            add("es_entity", .int(row.entity.entityID))
            add("es_observation", .int(row.observation))
            add("es_received", .string(ISO8601Text.string(milliseconds: row.received)))
        case .identify(let answer):
            if let line = answer.line { add("es_line", .int(Int64(line))) }
            if let point = answer.point {
                add("es_point_x", .double(point.x))
                add("es_point_y", .double(point.y))
                add("es_point_sr", IdentifyResult.spatialReferenceJSON(point.wkid))
                if let id = point.id { add("es_point_id", id) }
            }
            switch answer.answer {
            case .cell: break
            case .noCell(let hint, _): if let hint { add("es_hint", .string(hint)) }
            case .failed(let reason): add("es_error", .string(reason))
            }
            if let error = answer.outputError { add("es_error", .string(error)) }
        }
        guard let feature = result.feature else { return properties }
        let bookkeeping = Set(properties.map(\.key))
        let dates = Set(feature.dateAttributes)
        for member in feature.attributes {
            let key = bookkeeping.contains(member.key) || member.key == "x" || member.key == "y" ? "attribute_\(member.key)" : member.key
            properties.append(Property(key: key, value: member.value, isDate: dates.contains(member.key)))
        }
        return properties
    }

    private mutating func appendProperties(_ properties: [Property], geometry: AnalysisGeometry?, to writer: inout JSONWriter) {
        sequence += 1
        var byKey: [String: Int] = [:]
        for (index, property) in properties.enumerated() where byKey[property.key] == nil { byKey[property.key] = index }
        switch kind {
        case .geojson:
            for property in properties where known.insert(property.key).inserted { order.append(property.key) }
            writer.appendRaw("{\"type\":\"Feature\",\"id\":")
            writer.appendInt(Int64(sequence))
            writer.appendRaw(",\"geometry\":")
            if let geometry { JSONLinesFormatter.appendGeoJSONGeometry(geometry, to: &writer) } else { writer.appendNull() }
            writer.appendRaw(",\"properties\":{")
            for (position, key) in order.enumerated() {
                if position > 0 { writer.appendRaw(",") }
                writer.appendKey(key)
                if let index = byKey[key] {
                    Self.appendJSON(properties[index].value, isDate: properties[index].isDate, to: &writer)
                } else {
                    writer.appendNull()
                }
            }
            writer.appendRaw("}}\n")
        case .csv:
            let hasGeometry = geometry != nil || columns?.first == "x"
            if columns == nil {
                let header = (geometry != nil ? ["x", "y"] : []) + properties.map(\.key)
                columns = header
                writer.appendText(CSVText.record(header))
            }
            var first = true
            if hasGeometry {
                appendCoordinates(geometry, to: &writer)
                first = false
            }
            var written = 0
            for key in (columns ?? []).dropFirst(hasGeometry ? 2 : 0) {
                if !first { writer.appendRaw(",") }
                first = false
                if let index = byKey[key] {
                    written += 1
                    let property = properties[index]
                    if property.isDate, let milliseconds = property.value.intValue {
                        writer.appendText(ISO8601Text.string(milliseconds: milliseconds))
                    } else {
                        Self.appendCell(property.value, to: &writer)
                    }
                }
            }
            droppedValues += byKey.count - written
            writer.appendRaw("\r\n")
        }
    }

    // MARK: Values

    /// `x,y` of a point, or of a polygon's centre, in ``coordinates``; empty cells without one.
    private func appendCoordinates(_ geometry: AnalysisGeometry?, to writer: inout JSONWriter) {
        guard var centre = geometry?.centre else { return writer.appendRaw(",") }
        if let coordinates, let source = SpatialReference(code: geometry?.wkid), source != coordinates {
            guard let converted = try? CoordinateOperations.transform(x: centre.x, y: centre.y, from: source, to: coordinates) else {
                return writer.appendRaw(",")
            }
            centre = converted
        }
        if centre.x.isFinite { writer.appendDouble(centre.x) }
        writer.appendRaw(",")
        if centre.y.isFinite { writer.appendDouble(centre.y) }
    }

    private static func appendAttribute(_ value: AttributeValue, isDate: Bool, to writer: inout JSONWriter) {
        if case .date(let milliseconds) = value {
            writer.appendString(ISO8601Text.string(milliseconds: milliseconds))
        } else if isDate, case .int(let milliseconds) = value {
            writer.appendString(ISO8601Text.string(milliseconds: milliseconds))
        } else if case .double(let number) = value, !number.isFinite {
            writer.appendNull()
        } else {
            writer.append(value)
        }
    }

    private static func appendJSON(_ value: JSONValue, isDate: Bool, to writer: inout JSONWriter) {
        if isDate, let milliseconds = value.intValue {
            writer.appendString(ISO8601Text.string(milliseconds: milliseconds))
        } else {
            writer.append(value)
        }
    }

    /// A CSV cell of an attribute: a date as ISO-8601 text, else as ``appendCell(_:to:)-(JSONValue,_)``.
    private static func appendCell(_ value: AttributeValue, to writer: inout JSONWriter) {
        switch value {
        case .null: break
        case .bool(let flag): writer.appendBool(flag)
        case .int(let number): writer.appendInt(number)
        case .double(let number): if number.isFinite { writer.appendDouble(number) }
        case .string(let text): writer.appendText(CSVText.field(text))
        case .date(let milliseconds): writer.appendText(ISO8601Text.string(milliseconds: milliseconds))
        }
    }

    /// A CSV cell: empty for null and non-finite numbers, text quoted when it must be, JSON for the rest.
    private static func appendCell(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value {
        case .null: break
        case .double(let number) where !number.isFinite: break
        case .string(let text): writer.appendText(CSVText.field(text))
        case .array, .object: writer.appendText(CSVText.field(CSVText.cell(value)))
        default: writer.append(value)
        }
    }
}

extension JSONWriter {
    /// Appends `text`'s UTF-8 bytes as they are (CSV cells and records).
    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { appendRaw($0) }
    }
}
