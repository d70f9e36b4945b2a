extension JSONWriter {
    /// Appends `point` as a GeoJSON (RFC 7946) Point, or `null` when there is
    /// none or its coordinates are not finite. With `wgs84`, Web Mercator
    /// coordinates are converted to longitude/latitude (RFC 7946 wants
    /// WGS84); other references are written as they are.
    public mutating func appendGeoJSONPoint(_ point: Point?, wgs84: Bool = true) {
        guard let point, point.x.isFinite, point.y.isFinite else { return appendNull() }
        let written = wgs84 ? WebMercator.convert(point, to: 4326) ?? point : point
        appendRaw("{\"type\":\"Point\",\"coordinates\":[")
        appendDouble(written.x)
        appendRaw(",")
        appendDouble(written.y)
        if let z = point.z {
            appendRaw(",")
            appendDouble(z)
        }
        appendRaw("]}")
    }
}
