import EntityStreamModel
extension AttributeValue {
    /// The value as an error message shows it: `null`, `true`, `42`, `1.5`,
    /// `'text'` (quoted, cut after 40 characters), or an ISO-8601 date.
    public var displayText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "'\(s.count > 40 ? String(s.prefix(40)) + "…" : s)'"
        case .date(let ms):
            var writer = JSONWriter(capacity: 32)
            writer.appendISO8601(milliseconds: ms)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }
}
