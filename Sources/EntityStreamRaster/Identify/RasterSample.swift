import EntityStreamModel

/// The values of one raster cell: its column and row, and every band's
/// value at full precision.
///
/// `values[i]` is band i's sample as a Double (exact for every pixel type),
/// or nil when that sample is NoData (``NoDataValue``'s GDAL rule). The cell
/// ``isNoData`` when every band is. ``attributes`` are the ArcGIS Runtime's
/// `RasterCell` attributes. A value type; `Sendable`.
public struct RasterSample: Sendable, Hashable {
    public let column: Int
    public let row: Int
    public let pixelType: PixelType
    public let values: [Double?]
    /// For 64-bit integer types, each band's sample exactly (nil for NoData,
    /// and for a uint64 above `Int64.max`); nil for other types.
    public let wideIntegers: [Int64?]?

    public init(column: Int, row: Int, pixelType: PixelType, values: [Double?], wideIntegers: [Int64?]? = nil) {
        self.column = column
        self.row = row
        self.pixelType = pixelType
        self.values = values
        self.wideIntegers = wideIntegers
    }

    /// True when every band's sample is NoData.
    public var isNoData: Bool { values.allSatisfy { $0 == nil } }

    /// The Runtime's attributes, in this order: `Band_0` … `Band_<n-1>`
    /// (0-based; integers for integer pixel types, doubles for float types,
    /// null for a NoData sample and only for it; a NaN or infinite float
    /// sample that is not the NoData value is the string `"NaN"`,
    /// `"Infinity"` or `"-Infinity"`, as JSON has no such numbers),
    /// `Pixel.Type` (`uint8`, `float32`, …), and `"NoData": true` only when
    /// the whole cell is NoData. Typed values; ``attributes`` is their JSON.
    public var namedValues: [NamedValue] {
        var named: [NamedValue] = []
        named.reserveCapacity(values.count + 2)
        for (band, value) in values.enumerated() {
            if value != nil, let wide = wideIntegers, band < wide.count, let exact = wide[band] {
                named.append(NamedValue(name: "Band_\(band)", value: .int(exact)))
            } else {
                named.append(NamedValue(name: "Band_\(band)", value: attributeValue(value)))
            }
        }
        named.append(NamedValue(name: "Pixel.Type", value: .string(pixelType.rawValue)))
        if isNoData { named.append(NamedValue(name: "NoData", value: .bool(true))) }
        return named
    }

    /// ``namedValues`` as JSON (what enrichment writes under `raster`).
    public var attributes: JSONObject { JSONObject(namedValues) }

    private func attributeValue(_ value: Double?) -> AttributeValue {
        guard let value else { return .null }
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        if !pixelType.isFloatingPoint, let integer = Int64(exactly: value) { return .int(integer) }
        return .double(value)
    }
}
