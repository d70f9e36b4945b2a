import EntityStreamProjection
import EntityStreamModel

/// The stream-service filter: a where clause, an envelope, the fields to
/// send and the output spatial reference, as ArcGIS's subscribe parameters.
///
/// ``subscribeQueryItems()`` gives the query string of the subscribe URL;
/// ``filterMessage()`` the `{"filter":{…}}` message that changes the filter
/// on an open socket. `outSpatialReference` is fixed for a socket's life (a
/// change needs a new socket). A value type; parsing throws ``FilterError``
/// naming what is wrong.
public struct StreamFilter: Sendable, Hashable {
    /// SQL where clause; nil or `1=1` means every feature.
    public var whereClause: String?
    /// Envelope the features must intersect.
    public var geometry: Envelope?
    /// Field names to send; nil means all (`*`).
    public var outFields: [String]?
    /// The output spatial reference's code (``SpatialReference/code``); nil keeps the service's.
    public var outSpatialReference: Int?

    public init(whereClause: String? = nil, geometry: Envelope? = nil, outFields: [String]? = nil, outSpatialReference: Int? = nil) {
        self.whereClause = whereClause
        self.geometry = geometry
        self.outFields = outFields
        self.outSpatialReference = outSpatialReference
    }

    /// The where clause when it actually restricts anything.
    public var effectiveWhereClause: String? {
        guard let text = whereClause?.trimmingSpaces, !text.isEmpty, text != "1=1", text != "1 = 1" else { return nil }
        return text
    }

    /// True when where, geometry and outFields are all unset.
    public var restrictsNothing: Bool { effectiveWhereClause == nil && geometry == nil && outFields == nil }

    /// `where`, `geometry`, `outFields`, `outSR` for the subscribe URL (unencoded).
    public func subscribeQueryItems() -> [(String, String)] {
        var items: [(String, String)] = []
        if let outSR = SpatialReference(code: outSpatialReference) { items.append(("outSR", outSR.parameterText)) }
        if let whereClause = effectiveWhereClause { items.append(("where", whereClause)) }
        if let geometry { items.append(("geometry", Self.envelopeJSON(geometry))) }
        if let outFields { items.append(("outFields", outFields.joined(separator: ","))) }
        return items
    }

    /// `{"filter":{…}}` to change the filter on an open socket (`{"filter":null}` clears it).
    /// The geometry travels as a JSON string, as the ArcGIS clients send it.
    public func filterMessage() -> String {
        var writer = JSONWriter(capacity: 256)
        writer.appendRaw("{\"filter\":")
        if restrictsNothing {
            writer.appendRaw("null}")
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        writer.appendRaw("{")
        var first = true
        func key(_ name: String) {
            if !first { writer.appendRaw(",") }
            first = false
            writer.appendKey(name)
        }
        if let whereClause = effectiveWhereClause {
            key("where")
            writer.appendString(whereClause)
        }
        if let geometry {
            key("geometry")
            writer.appendString(Self.envelopeJSON(geometry))
        }
        if let outFields {
            key("outFields")
            writer.appendString(outFields.joined(separator: ","))
        }
        writer.appendRaw("}}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `{"xmin":…,"ymin":…,"xmax":…,"ymax":…,"spatialReference":{"wkid":…}}` (`{"wkt":…}` for a WKT reference).
    public static func envelopeJSON(_ envelope: Envelope) -> String {
        var writer = JSONWriter(capacity: 128)
        appendEnvelope(envelope, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Appends `envelope` as an Esri envelope object (see ``envelopeJSON(_:)``).
    public static func appendEnvelope(_ envelope: Envelope, to writer: inout JSONWriter) {
        writer.appendRaw("{\"xmin\":")
        writer.appendDouble(envelope.xmin)
        writer.appendRaw(",\"ymin\":")
        writer.appendDouble(envelope.ymin)
        writer.appendRaw(",\"xmax\":")
        writer.appendDouble(envelope.xmax)
        writer.appendRaw(",\"ymax\":")
        writer.appendDouble(envelope.ymax)
        if let wkid = envelope.wkid {
            writer.appendRaw(",\"spatialReference\":")
            writer.appendSpatialReference(code: wkid)
        }
        writer.appendRaw("}")
    }

    /// Parses `xmin,ymin,xmax,ymax[,SR]` (SR a WKID, `EPSG:n` or `ESRI:n`)
    /// or an Esri envelope JSON object; the spatial reference is checked with PROJ.
    public static func parseEnvelope(_ text: String) throws(FilterError) -> Envelope {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("{") {
            let value: JSONValue
            do throws(JSONError) { value = try JSONParser.parse(trimmed) } catch { throw .geometryJSON(error) }
            return try parseEnvelope(json: value)
        }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 4 || parts.count == 5 else {
            throw .envelopePartCount(text)
        }
        var numbers: [Double] = []
        for (index, part) in parts.prefix(4).enumerated() {
            guard let number = Double(part), number.isFinite else {
                throw .envelopeNotANumber(text, coordinate: ["xmin", "ymin", "xmax", "ymax"][index], part: part)
            }
            numbers.append(number)
        }
        var wkid: Int?
        if parts.count == 5 {
            do throws(ProjectionError) { wkid = try SpatialReference.parse(parts[4]).code } catch { throw .envelopeSpatialReference(text, error) }
        }
        return try validated(Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3], wkid: wkid), text: text)
    }

    /// Parses an Esri envelope object (`xmin`… and optional `spatialReference`).
    public static func parseEnvelope(json value: JSONValue) throws(FilterError) -> Envelope {
        guard let object = value.objectValue else { throw .notAnEnvelope }
        var numbers: [Double] = []
        for name in ["xmin", "ymin", "xmax", "ymax"] {
            guard let number = object[name]?.doubleValue, number.isFinite else {
                throw .envelopeMember(name)
            }
            numbers.append(number)
        }
        var wkid: Int?
        if let reference = object["spatialReference"] {
            do throws(ProjectionError) { wkid = try SpatialReference.parse(json: reference)?.code } catch { throw .envelopeObjectSpatialReference(error) }
        }
        return try validated(Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3], wkid: wkid), text: "envelope")
    }

    private static func validated(_ envelope: Envelope, text: String) throws(FilterError) -> Envelope {
        guard envelope.xmin < envelope.xmax, envelope.ymin < envelope.ymax else {
            throw .envelopeWithoutArea(text)
        }
        return envelope
    }

    /// An envelope given in JSON either way ArcGIS clients send it: as a
    /// string (`xmin,ymin,xmax,ymax[,wkid]` or an envelope's JSON text) or as
    /// an Esri envelope object.
    public static func parseGeometry(_ value: JSONValue) throws(FilterError) -> Envelope {
        if let text = value.stringValue { return try parseEnvelope(text) }
        return try parseEnvelope(json: value)
    }

    /// The `outFields` a list of names asks for: names trimmed, empty ones
    /// dropped; nil (every field) for `*` or nothing.
    public static func parseOutFields(_ names: [String]) -> [String]? {
        let fields = names.map(\.trimmingSpaces).filter { !$0.isEmpty }
        return fields.isEmpty || fields == ["*"] ? nil : fields
    }

    /// Parses the `filter` member of a `{"filter":…}` message (or a
    /// `set-filter` command): `null` clears; `where`, `geometry` (JSON string,
    /// object, or `xmin,ymin,xmax,ymax`), `outFields` (comma list or array).
    public static func parse(json value: JSONValue) throws(FilterError) -> StreamFilter {
        if value.isNull { return StreamFilter() }
        guard let object = value.objectValue else { throw .notAnObject }
        var filter = StreamFilter()
        var inputReference: Int?
        for member in object {
            switch member.key {
            case "where":
                if member.value.isNull { continue }
                guard let text = member.value.stringValue else { throw .whereNotAString }
                filter.whereClause = text
            case "geometry":
                if member.value.isNull { continue }
                filter.geometry = try parseGeometry(member.value)
            case "outFields":
                if member.value.isNull { continue }
                if let text = member.value.stringValue {
                    filter.outFields = parseOutFields(text.split(separator: ",").map(String.init))
                } else if let array = member.value.arrayValue {
                    var names: [String] = []
                    for element in array {
                        guard let name = element.stringValue else { throw .outFieldsElement(element) }
                        names.append(name)
                    }
                    filter.outFields = parseOutFields(names)
                } else {
                    throw .outFieldsNotAList
                }
            case "outSR":
                do throws(ProjectionError) { filter.outSpatialReference = try SpatialReference.parse(json: member.value)?.code } catch {
                    throw .outSpatialReference(error)
                }
            case "spatialRel":
                // Only "intersects" can be evaluated; anything else would be silently widened.
                guard member.value.isNull || member.value.stringValue == "esriSpatialRelIntersects" else {
                    throw .unsupportedSpatialRelationship(member.value)
                }
            case "geometryType":
                guard member.value.isNull || member.value.stringValue == "esriGeometryEnvelope" else {
                    throw .unsupportedGeometryType(member.value)
                }
            case "inSR":
                do throws(ProjectionError) { inputReference = try SpatialReference.parse(json: member.value)?.code } catch {
                    throw .inSpatialReference(error)
                }
            default:
                throw .unknownMember(member.key)
            }
        }
        if let inputReference, filter.geometry != nil {
            if let wkid = filter.geometry?.wkid, wkid != inputReference {
                throw .inSpatialReferenceContradicts(inSR: inputReference, geometry: wkid)
            }
            filter.geometry?.wkid = inputReference
        }
        return filter
    }
}
