/// ISO-8601 UTC text of an instant as a Swift string (`2026-11-23T08:00:00.000Z`),
/// the same text JSON lines carry.
public enum ISO8601Text {
    public static func string(milliseconds: Int64) -> String {
        var writer = JSONWriter(capacity: 32)
        writer.appendISO8601(milliseconds: milliseconds)
        return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
    }
}
