import EntityStreamTestSupport
@testable import EntityStreamStatistics
import Testing
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamModel

/// A having clause applied here, for servers that do not advertise
/// `supportsHavingClause`: the query asks for the statistics the clause needs
/// (not the clause), and the groups read back are filtered to exactly those
/// a server applying the clause would return.
@Suite("Statistics: a having clause applied to a server's groups", .bounded)
struct LocalHavingTests {
    @Test func localHavingKeepsWhatAServerWouldKeep() throws {
        // 60 rows: kind k0…k6 (sizes 9 or 8), value = row number.
        let csv = "kind,value\n" + (0..<60).map { "k\($0 % 7),\($0)" }.joined(separator: "\n") + "\n"
        let table = try FeatureFile.load(bytes: Array(csv.utf8), fileName: "rows.csv")
        let request = try StatisticsRequest(statisticSpecs: ["avg:value:mean"], groupBy: ["kind"], orderBy: [], having: "COUNT(*) > 8 AND MAX(value) >= 58")
        let plan = try StatisticsPlan(request, schema: table.schema)
        #expect(plan.havingOnlyOutputNames == ["HAVING_1", "HAVING_2"])

        var local = FeatureQuery()
        request.applyForLocalHaving(to: &local, plan: plan)
        #expect(local.havingClause == nil)
        #expect(local.outStatistics?.map(\.resolvedOutputName) == ["mean", "HAVING_1", "HAVING_2"])
        let engine = FeatureQueryEngine(maxRecordCount: 100, statistics: TableStatisticsEngine())
        let answer = try engine.run(local, on: table)
        let page = try FeatureSetReader.page(FeatureSetWriter.write(answer, format: .json))
        let (records, dropped) = try plan.records(from: page, applyingHaving: true)

        // Oracle: groups counted and filtered here.
        var rows: [String: [Int]] = [:]
        for index in 0..<60 { rows["k\(index % 7)", default: []].append(index) }
        let kept = rows.filter { $0.value.count > 8 && ($0.value.max() ?? 0) >= 58 }
        #expect(records.map { $0.group[0].value } .sorted { "\($0)" < "\($1)" } == kept.keys.sorted().map { .string($0) })
        #expect(dropped == rows.count - kept.count && dropped > 0 && !kept.isEmpty)
        for record in records {
            guard case .string(let kind) = record.group[0].value, let values = rows[kind] else { Issue.record("group \(record.group)"); continue }
            #expect(record.statistics.map(\.name) == ["mean"])
            #expect(record.statistics[0].value == .double(Double(values.reduce(0, +)) / Double(values.count)))
        }
        // Without applying it, every group comes back.
        #expect(try plan.records(from: page, applyingHaving: false).records.count == rows.count)
    }
}
