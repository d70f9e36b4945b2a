import Testing
import EntityStreamTestSupport
import EntityStreamStatistics
import EntityStreamModel

@Suite("Statistics on the real county table (the sample's diabetes by state)", .bounded)
struct CountyDataTests {
    static let file = "county/cdc_county_diabetes_inactivity_obesity.csv"

    static let schema = Schema(fields: [
        Field(name: "State", type: .string), Field(name: "County", type: .string), Field(name: "FIPSCodes", type: .string),
        Field(name: "Diabetes", type: .double), Field(name: "LeisureInactivity", type: .double), Field(name: "Obesity", type: .double),
    ])

    /// The file's rows, read with a minimal reader: the file quotes nothing, so every line is six comma-separated fields.
    static func rows() throws -> [[AttributeValue]] {
        let lines = try SharedData.text(file).split(whereSeparator: \.isNewline)
        #expect(lines.first == "State,County,FIPSCodes,Diabetes,LeisureInactivity,Obesity")
        var rows: [[AttributeValue]] = []
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 6, "line \(line) does not have six fields")
            rows.append(fields.enumerated().map { index, text in
                if index < 3 { return .string(text) }
                return Double(text).map(AttributeValue.double) ?? .null
            })
        }
        return rows
    }

    /// AVG, COUNT and STDDEV of Diabetes by State equal a two-pass computation written here, state by state in order.
    @Test(.enabled(if: SharedData.has(file), Comment(rawValue: SharedData.absentComment)))
    func diabetesByState() throws {
        let rows = try Self.rows()
        var byState: [String: [Double]] = [:]
        for row in rows {
            guard case .string(let state) = row[0], case .double(let value) = row[3] else { continue }
            byState[state, default: []].append(value)
        }
        let request = try StatisticsRequest(statisticSpecs: ["avg:Diabetes", "count:Diabetes", "stddev:Diabetes"],
                                            groupBy: ["State"], orderBy: ["State ASC"])
        let result = try StatisticsPlan(request, schema: Self.schema).compute(rows.map { TestRow(values: $0) })

        #expect(result.records.count == byState.count)
        #expect(result.records.count == 49)
        #expect(result.records.map { $0.groupValue("State") } == byState.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { .string($0) })
        for record in result.records {
            guard case .string(let state)? = record.groupValue("State"), let values = byState[state] else {
                Issue.record("unexpected group \(record.group)")
                continue
            }
            var total = 0.0
            for x in values { total += x }
            let mean = total / Double(values.count)
            var squares = 0.0
            for x in values { squares += (x - mean) * (x - mean) }
            #expect(record.statistics.map(\.name) == ["AVG_Diabetes", "COUNT_Diabetes", "STDDEV_Diabetes"])
            #expect(close(try #require(record.statistic("AVG_Diabetes")?.double), mean), "\(state)")
            #expect(record.statistic("COUNT_Diabetes") == .int(Int64(values.count)))
            if values.count < 2 {
                #expect(record.statistic("STDDEV_Diabetes") == .null, "\(state) has one county: no sample deviation")
            } else {
                let deviation = (squares / Double(values.count - 1)).squareRoot()
                #expect(close(try #require(record.statistic("STDDEV_Diabetes")?.double), deviation), "\(state)")
            }
        }
        let california = try #require(result.records.first { $0.groupValue("State") == .string("California") })
        #expect(california.statistic("COUNT_Diabetes") == .int(58))
    }

    /// A having clause and a descending order on a statistic over the real table agree with the same computation.
    @Test(.enabled(if: SharedData.has(file), Comment(rawValue: SharedData.absentComment)))
    func havingAndOrderOnRealData() throws {
        let rows = try Self.rows()
        var byState: [String: [Double]] = [:]
        for row in rows {
            guard case .string(let state) = row[0], case .double(let value) = row[5] else { continue }
            byState[state, default: []].append(value)
        }
        let request = try StatisticsRequest(statisticSpecs: ["max:Obesity:worst"], groupBy: ["State"], orderBy: ["worst DESC"],
                                            having: "COUNT(*) >= 60 AND AVG(Obesity) > 30")
        let result = try StatisticsPlan(request, schema: Self.schema).compute(rows.map { TestRow(values: $0) })
        let expected = byState.filter { $0.value.count >= 60 && $0.value.reduce(0, +) / Double($0.value.count) > 30 }
            .map { (state: $0.key, worst: $0.value.max() ?? 0) }
            .sorted { $0.worst != $1.worst ? $0.worst > $1.worst : Array($0.state.utf8).lexicographicallyPrecedes(Array($1.state.utf8)) }
        #expect(!expected.isEmpty)
        #expect(result.records.map { $0.groupValue("State") } == expected.map { .string($0.state) })
        #expect(result.records.map { $0.statistic("worst") } == expected.map { .double($0.worst) })
    }
}
