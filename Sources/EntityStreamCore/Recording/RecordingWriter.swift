/// Formats the lines of a recording (see ``RecordingFile``): the header, then
/// one line per received message with its offset from the start.
///
/// Messages that are valid single-line JSON are embedded as JSON
/// (`"message"`); anything else — malformed text included, so a replay
/// reproduces it — as an escaped string (`"text"`). A value type.
public struct RecordingWriter: Sendable {
    private var writer = JSONWriter(capacity: 64 * 1024)

    public init() {}

    /// The header line (with newline).
    public mutating func header(_ header: RecordingHeader) -> [UInt8] {
        header.line() + [UInt8(ascii: "\n")]
    }

    /// One message line (with newline).
    public mutating func line(offsetMilliseconds: Int64, message: UnsafeRawBufferPointer) -> [UInt8] {
        writer.removeAll()
        writer.appendRaw("{\"t\":")
        writer.appendInt(offsetMilliseconds)
        if !message.containsLineBreak, (try? JSONParser.validate(message)) != nil {
            writer.appendRaw(",\"message\":")
            writer.appendRaw(message)
        } else {
            writer.appendRaw(",\"text\":")
            writer.appendString(String(decoding: message, as: UTF8.self))
        }
        writer.appendRaw("}\n")
        return writer.bytes
    }
}
