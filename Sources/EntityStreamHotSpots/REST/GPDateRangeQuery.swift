import EntityStreamCore
import EntityStreamModel

/// The "Analyze hotspots" sample's `Query` parameter:
/// `("DATE" > date 'YYYY-MM-DD 00:00:00' AND "DATE" < date 'YYYY-MM-DD 00:00:00')`.
///
/// Both comparisons are strict, as in the sample: an incident at exactly the
/// `from` instant is excluded, and so is everything from the `to` instant on
/// (with day inputs, the whole to-day). Instants are epoch milliseconds
/// written in UTC (the sample's local-time pitfall pinned to UTC), as
/// `YYYY-MM-DD HH:MM:SS`, with `.fff` only when there are milliseconds —
/// the `date` literal form the project's where-clause engine reads. The field
/// name is double-quoted, inner quotes doubled.
public enum GPDateRangeQuery {
    /// Throws ``GPRESTError/invalidRequest(_:)`` when `to` is not after
    /// `from`, an instant is outside years 0001–9999, or the field is empty.
    public static func make(field: String = "DATE", from: Int64, to: Int64) throws(GPRESTError) -> String {
        guard !field.isEmpty, field.utf8.count <= 256 else { throw .invalidRequest("the date field name must be 1–256 bytes") }
        guard Instant.range.contains(from), Instant.range.contains(to) else {
            throw .invalidRequest("dates must be between years 0001 and 9999")
        }
        guard to > from else { throw .invalidRequest("the end date must be after the start date (both are excluded)") }
        let name = "\"" + field.replacingDoubleQuotes() + "\""
        return "(\(name) > date '\(literal(from))' AND \(name) < date '\(literal(to))')"
    }

    /// `YYYY-MM-DD HH:MM:SS[.fff]` in UTC.
    static func literal(_ milliseconds: Int64) -> String {
        var writer = JSONWriter(capacity: 32)
        writer.appendISO8601(milliseconds: milliseconds)   // "YYYY-MM-DDTHH:MM:SS.fffZ"
        let text = String(decoding: writer.bytes, as: UTF8.self)
        let characters = Array(text)
        let date = String(characters[1...10]), time = String(characters[12...19]), fraction = String(characters[21...23])
        return "\(date) \(time)" + (fraction == "000" ? "" : ".\(fraction)")
    }
}

extension String {
    func replacingDoubleQuotes() -> String {
        var result = ""
        for character in self {
            result.append(character)
            if character == "\"" { result.append("\"") }
        }
        return result
    }
}
