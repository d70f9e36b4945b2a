import EntityStreamModel
/// Formats the lines of a recording (see ``RecordingFile``) into a caller's
/// ``JSONWriter``: the header, then one line per received message with its
/// offset from the start. Appending many lines to one reusable writer and
/// writing it once per batch copies each message once.
///
/// Messages that are valid single-line JSON are embedded as JSON
/// (`"message"`); anything else — malformed text included, so a replay
/// reproduces it — as an escaped string (`"text"`). Stateless.
public enum RecordingWriter {
    /// Appends the header line (with newline).
    public static func appendHeader(_ header: RecordingHeader, to writer: inout JSONWriter) {
        writer.appendRaw(header.line())
        writer.appendRaw(UInt8(ascii: "\n"))
    }

    /// Appends one message line (with newline).
    public static func appendLine(offsetMilliseconds: Int64, message: UnsafeRawBufferPointer, to writer: inout JSONWriter) {
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
    }
}
