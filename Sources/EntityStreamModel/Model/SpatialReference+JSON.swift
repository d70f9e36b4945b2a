import EntityStreamProjection

/// Spatial references as ArcGIS's JSON and REST parameters spell them.
extension SpatialReference {
    /// Reads a spatial reference given as JSON: a WKID number (`4326`), a
    /// numeric string (`"4326"`), `{"wkid":…}`, `{"wkid":…,"latestWkid":…}`
    /// (the latest when PROJ knows it), `{"latestWkid":…}`, or `{"wkt":…}`;
    /// nil for JSON null. The reference is checked with PROJ.
    /// - Throws: ``ProjectionError`` naming the value and why it is not one
    ///   (an unknown WKID, WKT PROJ cannot read, a value of another shape).
    public static func parse(json value: JSONValue) throws(ProjectionError) -> SpatialReference? {
        switch value {
        case .null:
            return nil
        case .int(let number):
            return try wkid(Int64(exactly: number), text: String(number))
        case .double(let number):
            return try wkid(number == number.rounded() && abs(number) < 1e15 ? Int64(number) : nil, text: String(number))
        case .string(let text):
            return try parse(text: text)
        case .object(let object):
            if let wkt = object["wkt"], !wkt.isNull {
                guard let text = wkt.stringValue else { throw .malformed("\(value)", reason: "\"wkt\" must be a string") }
                return try SpatialReference(wkt: text)
            }
            func id(_ key: String) throws(ProjectionError) -> Int? {
                guard let member = object[key], !member.isNull else { return nil }
                guard let number = member.intValue ?? member.stringValue.flatMap({ Int64($0) }), number > 0,
                      number <= Int64(SpatialReference.maximumWKID) else {
                    throw .malformed("\(value)", reason: "\"\(key)\" must be a WKID (a whole number from 1 to \(SpatialReference.maximumWKID))")
                }
                return Int(number)
            }
            let wkid = try id("wkid"), latest = try id("latestWkid")
            guard wkid != nil || latest != nil else {
                throw .malformed("\(value)", reason: "expected {\"wkid\":N}, {\"latestWkid\":N} or {\"wkt\":\"…\"}")
            }
            if let wkid { try SpatialReference(wkid: wkid).validate() }
            let reference = SpatialReference(wkid: wkid, latestWkid: latest)
            try reference.validate()
            return reference
        case .bool, .array:
            throw .malformed("\(value)", reason: "expected a WKID, {\"wkid\":N} or {\"wkt\":\"…\"}")
        }
    }

    /// Reads a spatial reference from text: JSON (`{"wkid":2913}`,
    /// `{"wkt":"…"}`) or what ``parse(_:)`` reads (`2913`, `EPSG:2913`,
    /// `ESRI:102100`, WKT). The reference is checked with PROJ.
    public static func parse(text: String) throws(ProjectionError) -> SpatialReference {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("{"), let value = try? JSONParser.parse(trimmed), value.objectValue != nil,
           value["wkid"] != nil || value["latestWkid"] != nil || value["wkt"] != nil {
            guard let reference = try parse(json: value) else { throw .malformed(text, reason: "it is null") }
            return reference
        }
        return try parse(trimmed)
    }

    /// The code of a `spatialReference` object as a service sends it
    /// (`{"wkid":…,"latestWkid":…}` or `{"wkt":…}`), leniently: nil when it
    /// is absent or unreadable; a WKID PROJ does not know is kept as it is
    /// (whatever uses it then names it in its error).
    public static func code(ofJSON value: JSONValue?) -> Int? {
        guard let value, let object = value.objectValue else { return nil }
        if let wkt = object["wkt"]?.stringValue { return try? SpatialReference(wkt: wkt).code }
        func id(_ key: String) -> Int? {
            guard let number = object[key]?.intValue, number > 0, number <= Int64(maximumWKID) else { return nil }
            return Int(number)
        }
        let wkid = id("wkid"), latest = id("latestWkid")
        guard wkid != nil || latest != nil else { return nil }
        return SpatialReference(wkid: wkid, latestWkid: latest).code
    }

    private static func wkid(_ number: Int64?, text: String) throws(ProjectionError) -> SpatialReference {
        guard let number, number > 0, number <= Int64(maximumWKID) else {
            throw .malformed(text, reason: "a WKID is a whole number from 1 to \(maximumWKID)")
        }
        let reference = SpatialReference(wkid: Int(number))
        try reference.validate()
        return reference
    }

    /// As ArcGIS writes it: `{"wkid":N,"latestWkid":N}` for a WKID,
    /// `{"wkt":"…"}` for a reference known only by its WKT.
    public var json: JSONValue {
        if let wkt { return .object(JSONObject([("wkt", .string(wkt))])) }
        return .object(JSONObject([("wkid", .int(Int64(code))), ("latestWkid", .int(Int64(code)))]))
    }

    /// The value of an `outSR`/`inSR` REST parameter: the WKID, or the
    /// `{"wkt":…}` JSON text.
    public var parameterText: String {
        guard let wkt else { return String(code) }
        var writer = JSONWriter(capacity: wkt.utf8.count + 16)
        writer.append(.object(JSONObject([("wkt", .string(wkt))])))
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONWriter {
    /// Appends the spatial reference whose code a point carries:
    /// `{"wkid":N}`, or `{"wkt":"…"}` for a WKT reference.
    public mutating func appendSpatialReference(code: Int) {
        if code < 0, let wkt = SpatialReference(code: code)?.wkt {
            appendRaw("{\"wkt\":")
            appendString(wkt)
        } else {
            appendRaw("{\"wkid\":")
            appendInt(Int64(code))
        }
        appendRaw("}")
    }
}
