import EntityStreamModel

/// One `orderByFields` entry: a field name and a direction.
///
/// ``parseList(_:)`` reads `name [ASC|DESC], …` (directions
/// case-insensitive, ASC by default) and throws ``FeatureQueryError`` for
/// the `orderByFields` parameter naming a malformed entry. A plain value.
public struct OrderByField: Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var descending: Bool

    public init(field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// Parses a comma-separated `orderByFields` value; empty text is no ordering.
    public static func parseList(_ text: String, parameter: String = "orderByFields") throws(FeatureQueryError) -> [OrderByField] {
        var result: [OrderByField] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = part.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.isEmpty {
                if text.trimmingSpaces.isEmpty { return [] }
                throw FeatureQueryError(parameter, "an empty entry in '\(text)'")
            }
            guard words.count <= 2 else { throw FeatureQueryError(parameter, "'\(part.trimmingSpaces)' is not 'FIELD [ASC|DESC]'") }
            var descending = false
            if words.count == 2 {
                switch words[1].uppercased() {
                case "ASC": descending = false
                case "DESC": descending = true
                default: throw FeatureQueryError(parameter, "'\(words[1])' is not ASC or DESC (in '\(part.trimmingSpaces)')")
                }
            }
            result.append(OrderByField(field: String(words[0]), descending: descending))
        }
        return result
    }

    /// `name ASC` or `name DESC`.
    public var description: String { "\(field) \(descending ? "DESC" : "ASC")" }
}
