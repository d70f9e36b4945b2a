import EntityStreamModel
/// Writes CSV per RFC 4180, for tables a spreadsheet opens: fields
/// separated by `,`, records ended by CRLF, and a field quoted (`"…"`, an
/// inner `"` doubled) exactly when it holds a comma, a quote, a CR or an LF,
/// or starts or ends with a space or tab (which spreadsheets would trim).
/// ``CSVReader`` reads the output back to the same fields. Stateless.
public enum CSVText {
    /// `text` as one field, quoted when needed (the empty string is `""`,
    /// so that it reads back as text, not as a missing value).
    public static func field(_ text: String) -> String {
        if text.isEmpty { return "\"\"" }
        var needsQuotes = false
        for scalar in text.unicodeScalars where scalar == "," || scalar == "\"" || scalar == "\r" || scalar == "\n" {
            needsQuotes = true
            break
        }
        if let first = text.unicodeScalars.first, first == " " || first == "\t" { needsQuotes = true }
        if let last = text.unicodeScalars.last, last == " " || last == "\t" { needsQuotes = true }
        guard needsQuotes else { return text }
        var quoted = "\""
        for character in text.unicodeScalars {
            if character == "\"" { quoted.unicodeScalars.append("\"") }
            quoted.unicodeScalars.append(character)
        }
        quoted.unicodeScalars.append("\"")
        return quoted
    }

    /// One record: the fields, each quoted when needed, then CRLF.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// One record of values: null is an empty cell, the empty string `""`
    /// (``CSVReader`` reads them back as null and ""), others as ``cell(_:)``.
    public static func record(values: [JSONValue]) -> String {
        values.map { $0.isNull ? "" : field(cell($0)) }.joined(separator: ",") + "\r\n"
    }

    /// The text of a JSON value as a cell: null is empty, a string is its
    /// text, a number or boolean is written as JSON writes it (whole numbers
    /// without a fraction, doubles as the shortest text that reads back to
    /// the same double), arrays and objects as their JSON.
    public static func cell(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .string(let text): return text
        default:
            var writer = JSONWriter(capacity: 32)
            writer.append(value)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }
}
