import EntityStreamProjection
import EntityStreamModel

/// Turns bus events into lines (see the README's schema). In the Esri
/// format every event is one JSON object per line, `"event"` first, times
/// as ISO-8601 UTC and epoch milliseconds. In the feature formats (GeoJSON,
/// CSV) the events that are features — observations and analysis results —
/// are written by a ``FeatureFormatter``, and every other event as an Esri
/// JSON line to a side output (the command line's stderr).
///
/// Keeps the escaped field-name keys of the current schema, so writing an
/// observation copies bytes instead of escaping names again. A value type;
/// `append` never fails (values JSON cannot express, like NaN, become null).
public struct JSONLinesFormatter: Sendable {
    public let format: OutputFormat
    public private(set) var schema: Schema
    private var keys: [[UInt8]] = []
    /// The feature formats' writer (nil for Esri JSON).
    private var features: FeatureFormatter?
    /// Events of a batch mostly share a few times: keep the last ones formatted.
    private var timeCache = FormattedTimes()
    private var receivedCache = FormattedTimes()

    /// Recently written instants as `,"time":"…","epoch":…` (or other key names).
    private struct FormattedTimes {
        private var milliseconds: [Int64] = [.min, .min, .min, .min]
        private var texts: [[UInt8]] = [[], [], [], []]
        private var next = 0

        mutating func append(_ time: Int64, isoKey: StaticString, epochKey: StaticString, to writer: inout JSONWriter) {
            for slot in 0..<4 where milliseconds[slot] == time {
                writer.appendRaw(texts[slot])
                return
            }
            var scratch = JSONWriter(capacity: 64)
            scratch.appendRaw(isoKey)
            scratch.appendISO8601(milliseconds: time)
            scratch.appendRaw(epochKey)
            scratch.appendInt(time)
            let text = scratch.bytes
            milliseconds[next] = time
            texts[next] = text
            next = (next + 1) & 3
            writer.appendRaw(text)
        }
    }

    /// `coordinates`: where CSV writes x and y (``FeatureFormatter/coordinates``).
    public init(format: OutputFormat, schema: Schema, coordinates: SpatialReference? = .wgs84) {
        self.format = format
        self.schema = schema
        switch format {
        case .esri: features = nil
        case .geojson: features = FeatureFormatter(kind: .geojson, schema: schema)
        case .csv: features = FeatureFormatter(kind: .csv, schema: schema, coordinates: coordinates)
        }
        rebuildKeys()
    }

    /// Adopts a grown schema.
    public mutating func updateSchema(_ schema: Schema) {
        guard schema != self.schema else { return }
        self.schema = schema
        features?.updateSchema(schema)
        rebuildKeys()
    }

    /// CSV values whose key had no column (see ``FeatureFormatter/droppedValues``).
    public var droppedValues: Int { features?.droppedValues ?? 0 }

    private mutating func rebuildKeys() {
        var writer = JSONWriter(capacity: 64)
        keys = schema.fields.map { field in
            writer.removeAll()
            writer.appendKey(field.name)
            return writer.bytes
        }
    }

    /// Appends `event`: in the Esri format one line to `output`; in a
    /// feature format a feature to `output`, or any other event as an Esri
    /// JSON line to `side`. Returns true when it went to `output`.
    @discardableResult
    public mutating func append(_ event: StreamEvent, to output: inout JSONWriter, side: inout JSONWriter) -> Bool {
        if features != nil, FeatureFormatter.isFeature(event) {
            features?.append(event, to: &output)
            return true
        }
        if features == nil {
            appendEsri(event, to: &output)
            output.appendRaw(UInt8(ascii: "\n"))
            return true
        }
        if case .analysis(let analysis) = event.payload { features?.appendHeader(from: analysis, to: &output) }
        appendEsri(event, to: &side)
        side.appendRaw(UInt8(ascii: "\n"))
        return false
    }

    /// Appends `event` to `writer`: a feature, or an Esri JSON line.
    public mutating func append(_ event: StreamEvent, to writer: inout JSONWriter) {
        if features != nil, FeatureFormatter.isFeature(event) {
            features?.append(event, to: &writer)
            return
        }
        appendEsri(event, to: &writer)
        writer.appendRaw(UInt8(ascii: "\n"))
    }

    // MARK: Esri

    private mutating func appendEsri(_ event: StreamEvent, to writer: inout JSONWriter) {
        writer.appendRaw("{\"event\":\"")
        writer.appendRaw(eventNameBytes(event.kind))
        writer.appendRaw("\"")
        switch event.payload {
        case .store(let storeEvent):
            appendStoreFields(storeEvent, to: &writer)
            if event.primed { writer.appendRaw(",\"primed\":true") }
            appendTimes(event.time, to: &writer)
            // From the store event already bound (`event.observation` would copy it again).
            switch storeEvent {
            case .observation(_, _, let observation), .entityReceived(_, _, let observation):
                appendEsriGeometryAndAttributes(observation, to: &writer)
            case .observationPurged, .entityPurged:
                break
            }
            if let enrichment = event.enrichment { Self.appendEnrichment(enrichment, to: &writer) }
        case .analysis(let analysis):
            appendAnalysisFields(analysis, to: &writer)
            appendTimes(event.time, to: &writer)
            if let feature = analysis.feature {
                writer.appendRaw(",\"geometry\":")
                if let geometry = feature.geometry { Self.appendEsriGeometry(geometry, to: &writer) } else { writer.appendNull() }
                writer.appendRaw(",\"attributes\":")
                writer.append(.object(feature.attributes))
            }
        default:
            appendOtherFields(event.payload, to: &writer)
            appendTimes(event.time, to: &writer)
        }
        writer.appendRaw("}")
    }

    private func appendEsriGeometryAndAttributes(_ observation: Observation, to writer: inout JSONWriter) {
        // The service's own text for geometry and attributes, validated when decoded.
        let copied: Void? = observation.withSourceMembers { geometry, attributes in
            writer.appendRaw(",\"geometry\":")
            if let geometry { writer.appendRaw(geometry) } else { writer.appendNull() }
            writer.appendRaw(",\"attributes\":")
            if let attributes { writer.appendRaw(attributes) } else { writer.appendRaw("{}") }
        }
        if copied != nil { return }
        writer.appendRaw(",\"geometry\":")
        writer.appendEsriGeometry(observation.geometry)
        writer.appendRaw(",\"attributes\":{")
        appendAttributes(observation, keys: keys, to: &writer)
        writer.appendRaw("}")
    }

    /// Every field of the schema, in order (null for values the observation
    /// does not carry), as ``JSONWriter/appendFeature(_:fields:)`` writes them.
    private func appendAttributes(_ observation: Observation, keys: [[UInt8]], to writer: inout JSONWriter) {
        for index in keys.indices {
            if index > 0 { writer.appendRaw(UInt8(ascii: ",")) }
            writer.appendRaw(keys[index])
            writer.append(observation.attribute(index))
        }
    }

    // MARK: Shared members

    /// The enrichment's member name.
    static let enrichmentKey = "raster"

    /// `,"raster":{…}` (the enrichment's text is JSON written by ``JSONWriter``).
    private static func appendEnrichment(_ enrichment: ObservationEnrichment, to writer: inout JSONWriter) {
        if enrichment.redelivered { writer.appendRaw(",\"redelivered\":true") }
        if let deliveries = enrichment.deliveries {
            writer.appendRaw(",\"deliveries\":")
            writer.appendInt(Int64(clamping: deliveries))
        }
        // A delivery mark alone has no raster member.
        guard !enrichment.rasterText.isEmpty else { return }
        writer.appendRaw(",\"raster\":")
        writer.appendRaw(enrichment.rasterText)
    }

    private mutating func appendTimes(_ time: Int64, to writer: inout JSONWriter) {
        timeCache.append(time, isoKey: ",\"time\":", epochKey: ",\"epoch\":", to: &writer)
    }

    private func appendEntity(_ entity: EntityReference, to writer: inout JSONWriter) {
        writer.appendRaw(",\"track\":")
        writer.append(entity.trackID)
        writer.appendRaw(",\"entity\":")
        writer.appendInt(entity.entityID)
    }

    private mutating func appendStoreFields(_ event: StoreEvent, to writer: inout JSONWriter) {
        switch event {
        case .observation(let entity, let id, _), .entityReceived(let entity, let id, _):
            appendEntity(entity, to: &writer)
            writer.appendRaw(",\"observation\":")
            writer.appendInt(id)
        case .observationPurged(let entity, let id, let receivedAt, let reason):
            appendEntity(entity, to: &writer)
            writer.appendRaw(",\"observation\":")
            writer.appendInt(id)
            writer.appendRaw(",\"reason\":")
            writer.appendString(reason.rawValue)
            receivedCache.append(receivedAt, isoKey: ",\"received\":", epochKey: ",\"receivedEpoch\":", to: &writer)
        case .entityPurged(let entity, let cause):
            appendEntity(entity, to: &writer)
            writer.appendRaw(",\"cause\":")
            writer.appendString(cause.rawValue)
            writer.appendRaw(",\"purgeAll\":")
            writer.appendBool(cause == .purgeAll)
        }
    }

    private func appendOtherFields(_ payload: StreamEvent.Payload, to writer: inout JSONWriter) {
        switch payload {
        case .store:
            break
        case .status(let change):
            writer.appendRaw(",\"status\":")
            writer.appendString(change.status.rawValue)
            writer.appendRaw(",\"attempt\":")
            writer.appendInt(Int64(change.attempt))
            writer.appendOptionalMember(",\"url\":", change.url)
            writer.appendOptionalMember(",\"error\":", change.error.map { OneLine.bounded($0) })
            writer.appendOptionalMember(",\"source\":", change.source)
        case .filter(let outcome):
            writer.appendRaw(",\"result\":")
            writer.appendString(outcome.result.rawValue)
            writer.appendRaw(",\"filter\":")
            Self.appendFilter(outcome.requested, to: &writer)
            if let reply = outcome.reply {
                writer.appendRaw(",\"reply\":")
                writer.append(reply)
            }
            writer.appendOptionalMember(",\"error\":", outcome.error.map { OneLine.bounded($0) })
        case .error(let report):
            writer.appendRaw(",\"source\":")
            writer.appendString(report.source.rawValue)
            writer.appendRaw(",\"message\":")
            writer.appendString(OneLine.bounded(report.message))
            writer.appendRaw(",\"count\":")
            writer.appendInt(Int64(report.count))
        case .response(let response):
            writer.appendRaw(",\"id\":")
            writer.append(response.id)
            writer.appendRaw(",\"command\":")
            writer.appendString(response.command)
            writer.appendRaw(",\"ok\":")
            writer.appendBool(response.ok)
            if let result = response.result {
                writer.appendRaw(",\"result\":")
                writer.append(result)
            }
            writer.appendOptionalMember(",\"error\":", response.error.map { OneLine.bounded($0) })
        case .dropped(let count, let total):
            writer.appendRaw(",\"count\":")
            writer.appendInt(Int64(count))
            writer.appendRaw(",\"total\":")
            writer.appendInt(Int64(total))
        case .analysis(let analysis):
            appendAnalysisFields(analysis, to: &writer)
        }
    }

    // MARK: Analyses

    /// `,"id":…,"command":…,"phase":…` and the event's members, in order.
    private func appendAnalysisFields(_ analysis: AnalysisEvent, to writer: inout JSONWriter) {
        writer.appendRaw(",\"id\":")
        writer.append(analysis.job)
        writer.appendRaw(",\"command\":")
        writer.appendString(analysis.command)
        writer.appendRaw(",\"phase\":\"")
        writer.appendRaw(phaseNameBytes(analysis.phase))
        writer.appendRaw("\"")
        for member in analysis.members {
            writer.appendRaw(",")
            writer.appendKey(member.key)
            writer.append(member.value)
        }
    }

    /// Esri JSON: `{"x":…,"y":…,"spatialReference":{"wkid":…}}` or `{"rings":[[[x,y],…]],…}`.
    static func appendEsriGeometry(_ geometry: AnalysisGeometry, to writer: inout JSONWriter) {
        switch geometry {
        case .point(let point):
            writer.appendEsriGeometry(point)
        case .polygon(let rings, let wkid):
            writer.appendRaw("{\"rings\":")
            writer.appendRings(rings) { writer, coordinate in
                writer.appendDouble(coordinate.x)
                writer.appendRaw(",")
                writer.appendDouble(coordinate.y)
            }
            if let wkid {
                writer.appendRaw(",\"spatialReference\":")
                writer.appendSpatialReference(code: wkid)
            }
            writer.appendRaw("}")
        }
    }

    /// RFC 7946 geometry: coordinates in any other spatial reference are
    /// converted to WGS84 longitude/latitude through PROJ (a polygon's
    /// corners in one batch); a geometry PROJ cannot convert is `null`.
    static func appendGeoJSONGeometry(_ geometry: AnalysisGeometry, to writer: inout JSONWriter) {
        switch geometry {
        case .point(let point):
            writer.appendGeoJSONPoint(point)
        case .polygon(var rings, let wkid):
            if let source = SpatialReference(code: wkid), source != .wgs84 {
                for index in rings.indices {
                    guard (try? AnalysisGeometry.convert(&rings[index], from: source, to: .wgs84)) == 0 else { return writer.appendNull() }
                }
            }
            writer.appendRaw("{\"type\":\"Polygon\",\"coordinates\":[")
            for (ringIndex, ring) in rings.enumerated() {
                if ringIndex > 0 { writer.appendRaw(",") }
                writer.appendRaw("[")
                // GeoJSON exterior rings are counter-clockwise: Esri's clockwise rings reversed.
                for (index, coordinate) in ring.reversed().enumerated() {
                    if index > 0 { writer.appendRaw(",") }
                    writer.appendRaw("[")
                    writer.appendDouble(coordinate.x)
                    writer.appendRaw(",")
                    writer.appendDouble(coordinate.y)
                    writer.appendRaw("]")
                }
                writer.appendRaw("]")
            }
            writer.appendRaw("]}")
        }
    }

    private func phaseNameBytes(_ phase: AnalysisPhase) -> StaticString {
        switch phase {
        case .accepted: return "accepted"
        case .progress: return "progress"
        case .result: return "result"
        case .summary: return "summary"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        }
    }

    /// `{"where":…,"geometry":{…},"outFields":[…],"outSR":…}` with only the parts set.
    public static func appendFilter(_ filter: StreamFilter, to writer: inout JSONWriter) {
        writer.appendRaw("{")
        var first = true
        func separator(_ writer: inout JSONWriter) {
            if !first { writer.appendRaw(",") }
            first = false
        }
        if let whereClause = filter.effectiveWhereClause {
            separator(&writer)
            writer.appendKey("where")
            writer.appendString(whereClause)
        }
        if let geometry = filter.geometry {
            separator(&writer)
            writer.appendKey("geometry")
            StreamFilter.appendEnvelope(geometry, to: &writer)
        }
        if let outFields = filter.outFields {
            separator(&writer)
            writer.appendKey("outFields")
            writer.append(JSONValue.array(outFields.map { .string($0) }))
        }
        if let outSR = filter.outSpatialReference {
            separator(&writer)
            writer.appendKey("outSR")
            writer.appendInt(Int64(outSR))
        }
        writer.appendRaw("}")
    }

    private func eventNameBytes(_ kind: EventKind) -> StaticString {
        switch kind {
        case .status: return "status"
        case .observation: return "observation"
        case .entityReceived: return "entity-received"
        case .observationPurged: return "observation-purged"
        case .entityPurged: return "entity-purged"
        case .filter: return "filter"
        case .error: return "error"
        case .response: return "response"
        case .dropped: return "dropped"
        case .analysis: return "analysis"
        }
    }
}

extension JSONWriter {
    /// Appends `key` (a raw `,"name":` prefix) and `value` as a string, or
    /// nothing when `value` is nil.
    mutating func appendOptionalMember(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        appendRaw(key)
        appendString(value)
    }
}
