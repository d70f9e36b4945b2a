import EntityStreamProjection

extension JSONWriter {
    /// Appends `point` as a GeoJSON (RFC 7946) Point, or `null` when there is
    /// none, its coordinates are not finite, or PROJ cannot bring it to
    /// WGS84. With `wgs84` (RFC 7946's only coordinate reference system),
    /// coordinates in any other spatial reference are converted to
    /// longitude/latitude through PROJ; a point without a spatial reference
    /// is taken to be WGS84 already.
    public mutating func appendGeoJSONPoint(_ point: Point?, wgs84: Bool = true) {
        guard var written = point, written.x.isFinite, written.y.isFinite else { return appendNull() }
        if wgs84, let source = SpatialReference(code: written.wkid), source != .wgs84 {
            guard let converted = try? written.converted(to: .wgs84), converted.x.isFinite, converted.y.isFinite else { return appendNull() }
            written = converted
        }
        appendRaw("{\"type\":\"Point\",\"coordinates\":[")
        appendDouble(written.x)
        appendRaw(",")
        appendDouble(written.y)
        if let z = written.z {
            appendRaw(",")
            appendDouble(z)
        }
        appendRaw("]}")
    }
}
