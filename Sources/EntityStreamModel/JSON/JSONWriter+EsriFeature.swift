extension JSONWriter {
    /// Appends `observation` as one Esri JSON feature object:
    /// `{"geometry":{"x":…,"y":…[,"z":…][,"m":…][,"spatialReference":{"wkid":…}]},"attributes":{…}}`
    /// (`"geometry":null` when it has none). Attributes are written for every
    /// field of `fields`, in order, under the field's name; values the
    /// observation does not carry are `null`; dates are epoch-millisecond
    /// numbers. Reading the text back with an ``EsriFeatureDecoder`` over the
    /// same fields gives back an equal observation (apart from `receivedAt`,
    /// and apart from float/int typing where a value contradicts its field type).
    public mutating func appendFeature(_ observation: Observation, fields: [Field]) {
        appendRaw("{\"geometry\":")
        appendEsriGeometry(observation.geometry)
        appendRaw(",\"attributes\":{")
        for index in fields.indices {
            if index > 0 { appendRaw(ASCII.comma) }
            appendKey(fields[index].name)
            append(observation.attribute(index))
        }
        appendRaw("}}")
    }

    /// Appends `point` as an Esri JSON point,
    /// `{"x":…,"y":…[,"z":…][,"m":…][,"spatialReference":{"wkid":…}]}`, or
    /// `null` when there is none.
    public mutating func appendEsriGeometry(_ point: Point?) {
        guard let point else { return appendNull() }
        appendRaw("{\"x\":")
        appendDouble(point.x)
        appendRaw(",\"y\":")
        appendDouble(point.y)
        if let z = point.z {
            appendRaw(",\"z\":")
            appendDouble(z)
        }
        if let m = point.m {
            appendRaw(",\"m\":")
            appendDouble(m)
        }
        if let wkid = point.wkid {
            appendRaw(",\"spatialReference\":{\"wkid\":")
            appendInt(Int64(wkid))
            appendRaw(ASCII.closeBrace)
        }
        appendRaw(ASCII.closeBrace)
    }
}
