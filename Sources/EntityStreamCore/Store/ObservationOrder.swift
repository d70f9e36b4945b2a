import EntityStreamModel
/// One term of a query's ORDER BY over stored observations: the query's
/// time, the receive time, or a field, ascending or descending.
public struct ObservationOrder: Sendable, Hashable {
    public enum Key: Sendable, Hashable {
        /// The time the query's extent applies to (``ObservationTimeKey``).
        case time
        /// The receive time.
        case received
        /// A field, by schema index.
        case field(Int)
    }

    public var key: Key
    public var descending: Bool

    public init(key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    /// Parses `"time DESC, speed"`: each term `time`, `received` or a field
    /// name (case-insensitive; the keywords win over fields of those names),
    /// then optionally `ASC` or `DESC`. Throws a message naming the term.
    public static func parse(_ text: String, schema: Schema) throws(ObservationOrderError) -> [ObservationOrder] {
        var terms: [ObservationOrder] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = part.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let name = words.first, words.count <= 2 else {
                throw ObservationOrderError("orderBy term '\(part.trimmingSpaces)' must be a name and optionally ASC or DESC")
            }
            var descending = false
            if words.count == 2 {
                switch words[1].uppercased() {
                case "ASC": descending = false
                case "DESC": descending = true
                default: throw ObservationOrderError("orderBy term '\(part.trimmingSpaces)': expected ASC or DESC after '\(name)'")
                }
            }
            let key: Key
            switch name.lowercased() {
            case "time": key = .time
            case "received": key = .received
            default:
                guard let index = schema.index(ofField: name) else {
                    throw ObservationOrderError("orderBy: unknown field '\(name)' (time, received, or one of \(schema.fields.map(\.name).joined(separator: ", ")))")
                }
                key = .field(index)
            }
            terms.append(ObservationOrder(key: key, descending: descending))
        }
        return terms
    }
}

/// An ORDER BY that cannot be applied, with the reason.
public struct ObservationOrderError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
