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
                throw .malformedTerm(String(part.trimmingSpaces))
            }
            var descending = false
            if words.count == 2 {
                switch words[1].uppercased() {
                case "ASC": descending = false
                case "DESC": descending = true
                default: throw .invalidDirection(term: String(part.trimmingSpaces), name: name)
                }
            }
            let key: Key
            switch name.lowercased() {
            case "time": key = .time
            case "received": key = .received
            default:
                guard let index = schema.index(ofField: name) else {
                    throw .unknownField(name, fields: schema.fields.map(\.name))
                }
                key = .field(index)
            }
            terms.append(ObservationOrder(key: key, descending: descending))
        }
        return terms
    }
}

/// An ORDER BY that cannot be applied, by what was wrong.
public enum ObservationOrderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A term that is not a name and optionally ASC or DESC.
    case malformedTerm(String)
    /// A term whose second word is not ASC or DESC.
    case invalidDirection(term: String, name: String)
    /// A name that is not `time`, `received` or a field (`fields`: the schema's).
    case unknownField(String, fields: [String])

    public var description: String {
        switch self {
        case .malformedTerm(let term): return "orderBy term '\(term)' must be a name and optionally ASC or DESC"
        case .invalidDirection(let term, let name): return "orderBy term '\(term)': expected ASC or DESC after '\(name)'"
        case .unknownField(let name, let fields): return "orderBy: unknown field '\(name)' (time, received, or one of \(fields.joined(separator: ", ")))"
        }
    }
}
