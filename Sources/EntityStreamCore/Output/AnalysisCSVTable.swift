/// Result features of an analysis as a plain CSV table (RFC 4180): a
/// header row, then one row per feature — what `--format csv` prints.
///
/// Columns: `x`, `y` (the point; for a polygon, the mean of its outer
/// ring's corners — a fishnet cell's centre), then the attributes of the
/// first feature, in order. Later features fill the same columns by name
/// (a missing attribute is an empty cell; attributes the first feature did
/// not have are counted in ``droppedAttributes``, never silently lost).
/// Null and non-finite numbers are empty cells, the empty string is `""`
/// (so the two read back apart); text is quoted when it holds a comma,
/// quote, CR or LF (quotes doubled); objects and arrays are
/// written as their JSON text. Lines end with LF, as the project's other
/// line outputs. A value type.
public struct AnalysisCSVTable: Sendable {
    public private(set) var columns: [String]?
    /// Attribute values of later features that had no column.
    public private(set) var droppedAttributes = 0
    private var index: [String: Int] = [:]

    public init() {}

    /// Appends `feature`'s row (and the header before the first row).
    public mutating func append(_ feature: AnalysisFeature, to writer: inout JSONWriter) {
        if columns == nil {
            let names = feature.attributes.keys
            columns = names
            for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
            writer.appendRaw("x,y")
            for name in names {
                writer.appendRaw(UInt8(ascii: ","))
                Self.appendText(name, to: &writer)
            }
            writer.appendRaw(UInt8(ascii: "\n"))
        }
        let centre = Self.centre(feature.geometry)
        if let centre {
            Self.appendNumber(centre.x, to: &writer)
            writer.appendRaw(UInt8(ascii: ","))
            Self.appendNumber(centre.y, to: &writer)
        } else {
            writer.appendRaw(UInt8(ascii: ","))
        }
        let width = columns?.count ?? 0
        var cells = [JSONValue?](repeating: nil, count: width)
        for member in feature.attributes {
            if let position = index[member.key] { cells[position] = member.value } else { droppedAttributes += 1 }
        }
        for cell in cells {
            writer.appendRaw(UInt8(ascii: ","))
            if let cell { Self.appendValue(cell, to: &writer) }
        }
        writer.appendRaw(UInt8(ascii: "\n"))
    }

    /// The point, or the mean of a polygon's outer-ring corners (the closing corner not counted twice).
    static func centre(_ geometry: AnalysisGeometry?) -> (x: Double, y: Double)? {
        switch geometry {
        case .point(let point)?: return (point.x, point.y)
        case .polygon(let rings, _)?:
            guard var ring = rings.first, !ring.isEmpty else { return nil }
            if ring.count > 1, ring.first == ring.last { ring.removeLast() }
            var x = 0.0, y = 0.0
            for corner in ring {
                x += corner.x
                y += corner.y
            }
            return (x / Double(ring.count), y / Double(ring.count))
        case nil: return nil
        }
    }

    private static func appendNumber(_ number: Double, to writer: inout JSONWriter) {
        if number.isFinite { writer.appendDouble(number) }
    }

    private static func appendValue(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value {
        case .null: break
        case .bool(let flag): if flag { writer.appendRaw("true") } else { writer.appendRaw("false") }
        case .int(let number): writer.appendInt(number)
        case .double(let number): appendNumber(number, to: &writer)
        case .string(let text): appendText(text, to: &writer)
        case .array, .object:
            var json = JSONWriter(capacity: 64)
            json.append(value)
            appendText(String(decoding: json.bytes, as: UTF8.self), to: &writer)
        }
    }

    /// A text cell, quoted when it must be.
    static func appendText(_ text: String, to writer: inout JSONWriter) {
        let bytes = Array(text.utf8)
        let quote = UInt8(ascii: "\"")
        if bytes.isEmpty {
            writer.appendRaw([quote, quote])
            return
        }
        guard bytes.contains(where: { $0 == UInt8(ascii: ",") || $0 == quote || $0 == 10 || $0 == 13 }) else {
            writer.appendRaw(bytes)
            return
        }
        writer.appendRaw(quote)
        for byte in bytes {
            if byte == quote { writer.appendRaw(quote) }
            writer.appendRaw(byte)
        }
        writer.appendRaw(quote)
    }
}
