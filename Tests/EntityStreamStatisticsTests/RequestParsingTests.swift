import EntityStreamTestSupport
import Testing
import EntityStreamStatistics
import EntityStreamFeatures

@Suite("Statistics requests: the command line's and REST's textual forms", .bounded)
struct RequestParsingTests {
    /// The seven REST names parse case-insensitively; anything else does not.
    @Test
    func statisticTypeNames() {
        #expect(StatisticType(restName: "avg") == .avg)
        #expect(StatisticType(restName: "AVG") == .avg)
        #expect(StatisticType(restName: "StdDev") == .stddev)
        #expect(StatisticType(restName: "VAR") == .var)
        #expect(StatisticType.allCases.map { StatisticType(restName: $0.restName) } == StatisticType.allCases)
        #expect(StatisticType(restName: "median") == nil)
        #expect(StatisticType(restName: "percentile_cont") == nil)
        #expect(StatisticType(restName: "") == nil)
        #expect(StatisticType(restName: "avg ") == nil)
    }

    /// Default output names are ArcGIS's TYPE_field; the count of all rows is COUNT_ALL.
    @Test
    func defaultOutputNames() {
        let names = StatisticType.allCases.map { $0.defaultOutputName(field: "Diabetes_Percent") }
        #expect(names == ["COUNT_Diabetes_Percent", "SUM_Diabetes_Percent", "MIN_Diabetes_Percent", "MAX_Diabetes_Percent",
                          "AVG_Diabetes_Percent", "STDDEV_Diabetes_Percent", "VAR_Diabetes_Percent"])
        #expect(StatisticType.count.defaultOutputName(field: "*") == "COUNT_ALL")
    }

    /// `TYPE:FIELD[:ALIAS]` specs read with spaces trimmed and the type case-insensitive.
    @Test
    func statisticSpecs() throws {
        #expect(try StatisticDefinition(parsing: "avg:Diabetes_Percent") == StatisticDefinition(field: "Diabetes_Percent", type: .avg))
        #expect(try StatisticDefinition(parsing: "COUNT:Diabetes_Percent:counties")
            == StatisticDefinition(field: "Diabetes_Percent", type: .count, alias: "counties"))
        #expect(try StatisticDefinition(parsing: " stddev : x : spread ") == StatisticDefinition(field: "x", type: .stddev, alias: "spread"))
        #expect(try StatisticDefinition(parsing: "count:*") == StatisticDefinition(field: "*", type: .count))
    }

    /// Malformed specs are refused with a message naming the problem.
    @Test(arguments: [
        ("avg", "invalid statistic 'avg': expected TYPE:FIELD or TYPE:FIELD:ALIAS (for example avg:Diabetes_Percent)"),
        ("median:x", "unknown statistic type 'median' (expected count, sum, min, max, avg, stddev or var)"),
        (":x", "invalid statistic ':x': the statistic type is empty"),
        ("avg:", "invalid statistic 'avg:': the field is empty"),
        ("avg:x:", "invalid statistic 'avg:x:': the alias is empty"),
        ("avg:x:a,b", "invalid statistic 'avg:x:a,b': the alias holds a comma"),
        ("avg:x\u{1}", "invalid statistic 'avg:x\u{1}': the field holds a control character"),
    ])
    func malformedSpecs(spec: String, message: String) {
        #expect(statisticsErrorMessage { _ = try StatisticDefinition(parsing: spec) } == message)
    }

    /// Order-by terms: name, optional ASC/DESC (any case), names may hold spaces.
    @Test
    func orderingTerms() throws {
        #expect(try StatisticsOrdering(parsing: "State") == StatisticsOrdering(name: "State", direction: .ascending))
        #expect(try StatisticsOrdering(parsing: "State ASC") == StatisticsOrdering(name: "State", direction: .ascending))
        #expect(try StatisticsOrdering(parsing: " plows  desc ") == StatisticsOrdering(name: "plows", direction: .descending))
        #expect(try StatisticsOrdering(parsing: "speed limit DESC") == StatisticsOrdering(name: "speed limit", direction: .descending))
        #expect(try StatisticsOrdering.list(parsing: "State ASC,AVG_x DESC, County")
            == [StatisticsOrdering(name: "State"), StatisticsOrdering(name: "AVG_x", direction: .descending), StatisticsOrdering(name: "County")])
        #expect(try StatisticsOrdering.list(parsing: "  ") == [])
    }

    /// Malformed order-by text is refused.
    @Test(arguments: [
        ("", "invalid order-by term '': the term is empty"),
        ("DESC", "invalid order-by term 'DESC': expected NAME, NAME ASC or NAME DESC"),
        ("a,,b", "invalid order-by term 'a,,b': an empty term (two commas in a row, or a comma at an end)"),
        ("a,", "invalid order-by term 'a,': an empty term (two commas in a row, or a comma at an end)"),
    ])
    func malformedOrdering(text: String, message: String) {
        #expect(statisticsErrorMessage {
            if text.contains(",") { _ = try StatisticsOrdering.list(parsing: text) } else { _ = try StatisticsOrdering(parsing: text) }
        } == message)
    }

    /// Group-by field lists are comma-separated; empty items are refused.
    @Test
    func fieldLists() throws {
        #expect(try StatisticsRequest.fieldList(parsing: "State, County") == ["State", "County"])
        #expect(try StatisticsRequest.fieldList(parsing: "") == [])
        #expect(statisticsErrorMessage { _ = try StatisticsRequest.fieldList(parsing: "State,,County") }
            == "invalid group-by fields 'State,,County': an empty field name (two commas in a row, or a comma at an end)")
        let many = (0...StatisticsLimits.maximumGroupByFields).map { "f\($0)" }.joined(separator: ",")
        #expect(statisticsErrorMessage { _ = try StatisticsRequest.fieldList(parsing: many) } == "too many group-by fields (at most 32)")
    }

    /// The command line's form gathers specs, comma lists and the having clause.
    @Test
    func commandLineRequest() throws {
        let request = try StatisticsRequest(statisticSpecs: ["avg:Diabetes_Percent", "count:Diabetes_Percent:n"],
                                            groupBy: ["State", "County,Year"], orderBy: ["State ASC", "n DESC,County"],
                                            having: "  ")
        #expect(request.statistics == [StatisticDefinition(field: "Diabetes_Percent", type: .avg),
                                       StatisticDefinition(field: "Diabetes_Percent", type: .count, alias: "n")])
        #expect(request.groupBy == ["State", "County", "Year"])
        #expect(request.orderBy.map(\.name) == ["State", "n", "County"])
        #expect(request.orderBy.map(\.direction) == [.ascending, .descending, .ascending])
        #expect(request.having == nil)
    }

    /// REST outStatistics JSON with groupByFieldsForStatistics, orderByFields and havingClause.
    @Test
    func restRequest() throws {
        let request = try StatisticsRequest(
            outStatistics: #"[{"statisticType":"avg","onStatisticField":"Diabetes_Percent","outStatisticFieldName":"mean"},"#
                + #"{"statisticType":"COUNT","onStatisticField":"*"},{"statisticType":"max","onStatisticField":"x","outStatisticFieldName":""}]"#,
            groupByFieldsForStatistics: "State,County", orderByFields: "mean DESC", havingClause: "COUNT(*) > 1")
        #expect(request.statistics == [StatisticDefinition(field: "Diabetes_Percent", type: .avg, alias: "mean"),
                                       StatisticDefinition(field: "*", type: .count),
                                       StatisticDefinition(field: "x", type: .max)])
        #expect(request.groupBy == ["State", "County"])
        #expect(request.orderBy == [StatisticsOrdering(name: "mean", direction: .descending)])
        #expect(request.having == "COUNT(*) > 1")
    }

    /// Malformed outStatistics is refused with a message naming the place.
    @Test(arguments: [
        (#"{"statisticType":"avg"}"#, "invalid outStatistics: expected a JSON array of statistic definitions"),
        (#"[1]"#, "invalid outStatistics: outStatistics[0] is not an object"),
        (#"[{"statisticType":"avg"}]"#, "invalid outStatistics: outStatistics[0] needs a string onStatisticField"),
        (#"[{"onStatisticField":"x"}]"#, "invalid outStatistics: outStatistics[0] needs a string statisticType"),
        (#"[{"statisticType":"percentile_cont","onStatisticField":"x"}]"#,
         "unknown statistic type 'percentile_cont' (expected count, sum, min, max, avg, stddev or var)"),
        (#"[{"statisticType":"avg","onStatisticField":"x","statisticParameters":{}}]"#,
         "invalid outStatistics: outStatistics[0] has an unknown key 'statisticParameters' (expected statisticType, onStatisticField, outStatisticFieldName)"),
        (#"[{"statisticType":"avg","onStatisticField":"x","outStatisticFieldName":3}]"#,
         "invalid outStatistics: outStatistics[0]: outStatisticFieldName must be a string"),
        (#"[{"statisticType":"avg","onStatisticField":""}]"#, "invalid outStatistics: outStatistics[0]: the field is empty"),
        (#"[{"statisticType":"avg""#, "invalid outStatistics: invalid JSON at byte 23: unexpected end of input; expected ',' or '}' after object member"),
    ])
    func malformedOutStatistics(json: String, message: String) {
        #expect(statisticsErrorMessage { _ = try StatisticsRequest(outStatistics: json) } == message)
    }
}
