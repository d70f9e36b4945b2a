import EntityStreamTestSupport
import Testing
import EntityStreamStatistics
import EntityStreamModel

@Suite("Statistics plans: every request error is caught before any row is read", .bounded)
struct PlanErrorTests {
    static let schema = Schema(fields: [
        Field(name: "State", type: .string),
        Field(name: "County", type: .string),
        Field(name: "Diabetes", type: .double),
        Field(name: "Population", type: .integer),
        Field(name: "Updated", type: .date),
        Field(name: "Code", type: .guid),
        Field(name: "Blob", type: .other("esriFieldTypeBlob")),
    ])

    static func message(_ stats: [String], groupBy: [String] = [], orderBy: [String] = [], having: String? = nil) -> String? {
        statisticsErrorMessage {
            let request = try StatisticsRequest(statisticSpecs: stats, groupBy: groupBy, orderBy: orderBy, having: having)
            _ = try StatisticsPlan(request, schema: schema)
        }
    }

    /// Statistic and group-by errors name the culprit.
    @Test(arguments: [
        ([String](), [String](), "no statistics requested: give at least one (for example count:*)"),
        (["avg:Diabetis"], [], "unknown field 'Diabetis' in statistic avg:Diabetis"),
        (["avg:State"], [], "AVG needs a numeric field, but 'State' is a string field"),
        (["sum:updated"], [], "SUM needs a numeric field, but 'Updated' is a date field"),
        (["stddev:Code"], [], "STDDEV needs a numeric field, but 'Code' is a GUID field"),
        (["var:County"], [], "VAR needs a numeric field, but 'County' is a string field"),
        (["avg:*"], [], "AVG of '*' is not allowed: only COUNT takes '*' (all rows)"),
        (["max:*"], [], "MAX of '*' is not allowed: only COUNT takes '*' (all rows)"),
        (["count:Diabetes"], ["Stat"], "unknown group-by field 'Stat'"),
        (["count:Diabetes"], ["State", "state"], "group-by field 'State' is listed twice"),
        (["avg:Diabetes", "avg:diabetes"], [], "output name 'AVG_Diabetes' is used twice (give the statistic an alias)"),
        (["avg:Diabetes:x", "max:Diabetes:X"], [], "output name 'X' is used twice (give the statistic an alias)"),
        (["count:Diabetes:state"], ["State"], "output name 'state' is used twice (give the statistic an alias)"),
    ])
    func statisticErrors(stats: [String], groupBy: [String], expected: String) {
        #expect(Self.message(stats, groupBy: groupBy) == expected)
    }

    /// Numeric statistics accept every numeric type and fields of unknown type; count/min/max accept any field.
    @Test
    func acceptedFields() throws {
        let request = try StatisticsRequest(statisticSpecs: [
            "avg:Diabetes", "sum:Population", "stddev:Blob", "min:State", "max:Updated", "count:Code", "count:*",
        ])
        let plan = try StatisticsPlan(request, schema: Self.schema)
        #expect(plan.statisticNames == ["AVG_Diabetes", "SUM_Population", "STDDEV_Blob", "MIN_State", "MAX_Updated", "COUNT_Code", "COUNT_ALL"])
        #expect(plan.referencedFieldIndices == [0, 2, 3, 4, 5, 6])
    }

    /// Order-by errors: neither a group field nor an output name (statistic fields and ungrouped fields included), or twice.
    @Test(arguments: [
        (["County"], "order-by 'County' is neither a group-by field nor a statistic output name (expected one of: State, AVG_Diabetes, n)"),
        (["Diabetes"], "order-by 'Diabetes' is neither a group-by field nor a statistic output name (expected one of: State, AVG_Diabetes, n)"),
        (["State", "state DESC"], "order-by names 'state' twice"),
    ])
    func orderingErrors(orderBy: [String], expected: String) {
        #expect(Self.message(["avg:Diabetes", "count:*:n"], groupBy: ["State"], orderBy: orderBy) == expected)
    }

    /// Having errors: a field outside an aggregate, an unknown aggregate, bad arguments, type errors — with positions.
    @Test(arguments: [
        ("State = 'CA'", "having clause error at position 1: 'State' is not inside an aggregate: a having clause compares aggregates only (AVG, COUNT, SUM, STDDEV, MIN, MAX or VAR of a field, or COUNT(*))"),
        ("COUNT(*) > 1 AND Diabetes > 3", "having clause error at position 18: 'Diabetes' is not inside an aggregate: a having clause compares aggregates only (AVG, COUNT, SUM, STDDEV, MIN, MAX or VAR of a field, or COUNT(*))"),
        ("MEDIAN(Diabetes) > 3", "having clause error at position 1: unknown function 'MEDIAN' (aggregates: AVG, COUNT, SUM, STDDEV, MIN, MAX, VAR)"),
        ("AVG(Diabetis) > 3", "having clause error at position 1: unknown field 'Diabetis' in AVG(Diabetis)"),
        ("COUNT(*) > 1 AND AVG(State) > 3", "having clause error at position 18: AVG needs a numeric field, but 'State' is a string field"),
        ("SUM(*) > 3", "having clause error at position 1: SUM of '*' is not allowed: only COUNT takes '*' (all rows)"),
        ("MAX(State) > 3", "having clause error at position 14: cannot compare string field 'MAX(State)' with number 3"),
        ("COUNT(*) >", "having clause error at position 11: expected an operand after '>', found end of clause"),
        ("AVG(Diabetes)", "having clause error at position 1: expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found double field 'AVG(Diabetes)'"),
    ])
    func havingErrors(having: String, expected: String) {
        #expect(Self.message(["avg:Diabetes"], groupBy: ["State"], having: having) == expected)
    }

    /// Limits: too many statistics are refused.
    @Test
    func tooManyStatistics() {
        let specs = (0...StatisticsLimits.maximumStatistics).map { "count:Diabetes:c\($0)" }
        #expect(Self.message(specs) == "too many statistics (at most 256)")
    }
}
