import EntityStreamModel
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
/// ``Cell``) and each observation's value is one concatenation into a
/// buffer of its own (``Layout/enrichment(_:)``). Own storage matters: an
/// event is copied and released on several threads (store, bus, writer),
/// and a buffer shared by many events makes each of those reference-count
/// updates contend on one cache line (measured: +17% pipeline CPU shared,
/// none with a buffer per event). The text is only ever produced by
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

    /// One raster's cell, its attributes written as a JSON object once, to
    /// be copied into the value of every observation over that cell.
    public struct Cell: Sendable, Hashable {
        /// The raster's name.
        public let raster: String
        /// The attributes as a JSON object.
        public let text: [UInt8]

        /// `attributes` (members in order) of a cell of raster `raster`.
        public init(raster: String, attributes: JSONObject) {
            var writer = JSONWriter(capacity: 128)
            writer.append(.object(attributes))
            self.raster = raster
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

        /// The value whose raster `index` (in ``names`` order) has
        /// `cell(index)` under the point (nil, or a cell of another raster
        /// than the layout names there: `null`), in a buffer of its own.
        public func enrichment(_ cell: (Int) -> Cell?) -> ObservationEnrichment {
            var length = 2
            for index in keys.indices { length &+= keys[index].count &+ 96 }
            var text: [UInt8] = []
            text.reserveCapacity(length)
            text.append(UInt8(ascii: "{"))
            for index in keys.indices {
                text.append(contentsOf: keys[index])
                if let found = cell(index), found.raster == names[index] {
                    text.append(contentsOf: found.text)
                } else {
                    text.append(contentsOf: Self.null)
                }
            }
            text.append(UInt8(ascii: "}"))
            return ObservationEnrichment(rasterText: text)
        }

        /// Every raster `null` (an observation without geometry), in a buffer of its own.
        public func empty() -> ObservationEnrichment { enrichment { _ in nil } }

        private static let null: [UInt8] = Array("null".utf8)
    }

    /// The observation was delivered before (`consume`: a line that may have
    /// been written before a stop), written as `"redelivered":true`.
    public let redelivered: Bool
    /// How many times JetStream delivered it, when its count says so
    /// (written as `"deliveries":N`).
    public let deliveries: UInt64?

    /// `raster` with the observation marked as delivered again (`deliveries` times, if known).
    public init(marking raster: ObservationEnrichment?, deliveries: UInt64?) {
        rasterText = raster?.rasterText ?? []
        redelivered = true
        self.deliveries = deliveries
    }

    private init(rasterText: [UInt8]) {
        redelivered = false
        deliveries = nil
        self.rasterText = rasterText
    }
}
