/// The bounds every statistics request is checked against, so no request
/// can make parsing or compiling unbounded. Exceeding one is a
/// ``StatisticsError/limitExceeded(what:limit:)``.
public enum StatisticsLimits {
    /// Statistics per request (requested ones; having-only aggregates are bounded by the clause).
    public static let maximumStatistics = 256
    /// Group-by fields per request.
    public static let maximumGroupByFields = 32
    /// Order-by terms per request.
    public static let maximumOrderTerms = 64
    /// Scalars in one field name, alias or order-by term.
    public static let maximumNameLength = 256
    /// Bytes of REST `outStatistics` JSON, and of the having clause text.
    public static let maximumTextLength = 65_536
    /// Groups one accumulator holds by default; rows that would open more are
    /// counted in ``StatisticsResult/rowsOverGroupLimit``, never silently dropped.
    public static let defaultMaximumGroups = 1_000_000
}
