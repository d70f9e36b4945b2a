import EntityStreamModel
import EntityStreamFeatures

/// One order-by term of a statistics request: a group-by field or a
/// statistic output name, and a direction (ASC by default).
///
/// ``init(parsing:)`` reads `NAME`, `NAME ASC` or `NAME DESC` (direction
/// case-insensitive; a name may hold spaces); ``list(parsing:)`` reads REST
/// `orderByFields` (`f1 ASC,f2 DESC`). Whether the name exists is checked
/// by ``StatisticsPlan``. A plain value type.
public struct StatisticsOrdering: Sendable, Hashable {
    public var name: String
    public var direction: SortDirection

    public init(name: String, direction: SortDirection = .ascending) {
        self.name = name
        self.direction = direction
    }

    /// Reads one term. When the last word is `ASC` or `DESC` it is the
    /// direction and the rest is the name; otherwise the whole text is the name.
    /// - Throws: ``StatisticsError/malformedOrdering(text:reason:)`` for an
    ///   empty term, a bare direction, or a name too long or with control characters.
    public init(parsing term: String) throws(StatisticsError) {
        let text = term.trimmingSpaces
        guard !text.isEmpty else { throw .malformedOrdering(text: term, reason: "the term is empty") }
        var name = text
        var direction = SortDirection.ascending
        if let space = text.lastIndex(where: { $0 == " " || $0 == "\t" }) {
            switch Schema.fold(String(text[text.index(after: space)...])) {
            case "asc": name = String(text[..<space]).trimmingSpaces
            case "desc": name = String(text[..<space]).trimmingSpaces; direction = .descending
            default: break
            }
        }
        if ["asc", "desc"].contains(Schema.fold(name)) {
            throw .malformedOrdering(text: term, reason: "expected NAME, NAME ASC or NAME DESC")
        }
        if let problem = StatisticDefinition.nameProblem(name, role: "name") {
            throw .malformedOrdering(text: term, reason: problem)
        }
        self.init(name: name, direction: direction)
    }

    /// Reads a comma-separated list of terms (REST `orderByFields`); empty or
    /// all-space text is no ordering.
    /// - Throws: ``StatisticsError`` for an empty term (`a,,b`, a trailing
    ///   comma), a malformed term, or more than ``StatisticsLimits/maximumOrderTerms``.
    public static func list(parsing text: String) throws(StatisticsError) -> [StatisticsOrdering] {
        if text.trimmingSpaces.isEmpty { return [] }
        let terms = text.split(separator: ",", omittingEmptySubsequences: false)
        guard terms.count <= StatisticsLimits.maximumOrderTerms else {
            throw .limitExceeded(what: .orderByTerms, limit: StatisticsLimits.maximumOrderTerms)
        }
        var result: [StatisticsOrdering] = []
        for term in terms {
            if term.trimmingSpaces.isEmpty {
                throw .malformedOrdering(text: text, reason: "an empty term (two commas in a row, or a comma at an end)")
            }
            result.append(try StatisticsOrdering(parsing: String(term)))
        }
        return result
    }
}
