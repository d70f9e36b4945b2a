/// Why a CSV text, or a column mapping for one, was rejected.
///
/// `message` says what is wrong in words a user can act on (naming the
/// column, key or value concerned); `line` is the 1-based physical line of
/// the CSV text where the offending record starts (the header is line 1), or
/// nil when the problem is not about a data line (the mapping text, a
/// missing header column). ``description`` prefixes the line: "line 7: …".
/// A plain value.
public struct CSVError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var line: Int?

    public init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}
