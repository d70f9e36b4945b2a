/// What a request had too much of (``StatisticsError/limitExceeded(what:limit:)``),
/// each bounded by ``StatisticsLimits``; its description is the plural the
/// message prints ("too many group-by fields (at most 32)").
public enum StatisticsLimit: Sendable, Hashable, CustomStringConvertible {
    case statistics
    case groupByFields
    case orderByTerms
    /// The `outStatistics` JSON text.
    case outStatisticsBytes
    /// The having clause's text.
    case havingBytes

    public var description: String {
        switch self {
        case .statistics: return "statistics"
        case .groupByFields: return "group-by fields"
        case .orderByTerms: return "order-by terms"
        case .outStatisticsBytes: return "bytes of outStatistics"
        case .havingBytes: return "bytes in the having clause"
        }
    }
}
