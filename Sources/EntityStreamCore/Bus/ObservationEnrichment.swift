/// What a session adds to an observation's `observation` and
/// `entity-received` events before they reach the bus: with `--enrich NAME`,
/// the cell of each named raster under the observation's point, written by
/// ``JSONLinesFormatter`` as one `"raster"` member — at the end of an Esri
/// line, among the properties of a GeoJSON Feature:
///
///     "raster":{"dem":{"Band_0":1423.5,"Pixel.Type":"float32"},"landcover":null}
///
/// (`null` for a raster with no cell under the point: outside it, on its
/// right or bottom edge, no geometry, or a point that cannot be transformed).
///
/// The value holds that object already written as JSON text, so a line
/// copies bytes: the cell under many observations is formatted once (see
/// ``Cell``) and each observation's enrichment is one concatenation
/// (``Layout/enrichment(_:)``). The text is only ever produced by
/// ``JSONWriter`` through these types, so it is valid JSON. A value type;
/// `Sendable`.
public struct ObservationEnrichment: Sendable, Hashable {
    /// The `"raster"` member's value: `{"name":cell-or-null,…}`.
    public let rasterText: [UInt8]

    /// The `"raster"` member's value parsed (for tests and subscribers that
    /// read values rather than write lines).
    public var raster: JSONObject {
        (try? JSONParser.parse(rasterText))?.objectValue ?? JSONObject()
    }

    /// One cell's attributes written as a JSON object, to be shared by every
    /// observation over that cell.
    public struct Cell: Sendable, Hashable {
        public let text: [UInt8]

        /// `attributes` as compact JSON text (members in order).
        public init(attributes: JSONObject) {
            var writer = JSONWriter(capacity: 96)
            writer.append(.object(attributes))
            text = writer.bytes
        }
    }

    /// The names of the enriching rasters, in the order they are written,
    /// with their keys already escaped: builds each observation's value.
    public struct Layout: Sendable, Hashable {
        public let names: [String]
        private let keys: [[UInt8]]

        public init(names: [String]) {
            self.names = names
            var writer = JSONWriter(capacity: 64)
            keys = names.enumerated().map { index, name in
                writer.removeAll()
                if index > 0 { writer.appendRaw(UInt8(ascii: ",")) }
                writer.appendKey(name)
                return writer.bytes
            }
        }

        /// The enrichment whose raster `index` (in ``names`` order) has
        /// `cell(index)` under the point (nil: `null`).
        public func enrichment(_ cell: (Int) -> Cell?) -> ObservationEnrichment {
            var length = 2
            for index in keys.indices { length &+= keys[index].count &+ (cell(index)?.text.count ?? 4) }
            var text: [UInt8] = []
            text.reserveCapacity(length)
            text.append(UInt8(ascii: "{"))
            for index in keys.indices {
                text.append(contentsOf: keys[index])
                if let cell = cell(index) { text.append(contentsOf: cell.text) } else { text.append(contentsOf: Self.null) }
            }
            text.append(UInt8(ascii: "}"))
            return ObservationEnrichment(rasterText: text)
        }

        /// Every raster `null` (an observation without geometry).
        public var empty: ObservationEnrichment { enrichment { _ in nil } }

        private static let null: [UInt8] = Array("null".utf8)
    }

    private init(rasterText: [UInt8]) {
        self.rasterText = rasterText
    }
}
