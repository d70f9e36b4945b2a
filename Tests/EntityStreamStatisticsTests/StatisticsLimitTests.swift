import EntityStreamTestSupport
import EntityStreamStatistics
import Testing

@Suite("Statistics limits: the REST parameter named by case", .bounded)
struct StatisticsLimitTests {
    /// Each limit names the parameter a server would name, and the message says what there was too much of.
    @Test func limitNamesItsParameter() {
        let expected: [(StatisticsLimit, String, String)] = [
            (.statistics, "outStatistics", "too many statistics (at most 7)"),
            (.outStatisticsBytes, "outStatistics", "too many bytes of outStatistics (at most 7)"),
            (.groupByFields, "groupByFieldsForStatistics", "too many group-by fields (at most 7)"),
            (.orderByTerms, "orderByFields", "too many order-by terms (at most 7)"),
            (.havingBytes, "having", "too many bytes in the having clause (at most 7)"),
        ]
        for (limit, parameter, message) in expected {
            let error = StatisticsError.limitExceeded(what: limit, limit: 7)
            #expect(error.restParameter == parameter && error.description == message, "\(limit)")
        }
    }

    /// Too many order-by terms, as parsed, is refused under orderByFields.
    @Test func parsedOrderingOverTheLimit() throws {
        let terms = (0...StatisticsLimits.maximumOrderTerms).map { "f\($0)" }.joined(separator: ",")
        do {
            _ = try StatisticsOrdering.list(parsing: terms)
            Issue.record("accepted \(StatisticsLimits.maximumOrderTerms + 1) terms")
        } catch {
            #expect(error.restParameter == "orderByFields")
        }
    }
}
