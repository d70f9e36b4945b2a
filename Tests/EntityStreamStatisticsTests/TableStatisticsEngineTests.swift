import Foundation
import EntityStreamStatistics
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures

/// One synthetic row, as the test knows it.
private struct Row {
    var kind: String?
    var agency: Int64?
    var speed: Double?
    var when: Int64?
    var x: Double
}

/// `count` rows: 5 kinds (and some null), 3 agencies, dyadic speeds (sums are exact), times 1 s apart.
private func rows(_ count: Int, seed: UInt64 = 7) -> [Row] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in
        Row(kind: random.next(below: 11) == 0 ? nil : ["plow", "salt", "grader", "loader", "Pickup"][random.next(below: 5)],
            agency: Int64(1 + random.next(below: 3)),
            speed: random.next(below: 9) == 0 ? nil : Double(random.next(below: 400)) / 4,
            when: 1_000_000 + Int64(index) * 1000, x: Double(index % 20))
    }
}

/// A point table of `rows` (OBJECTID, kind, agency, speed, when), time-aware on `when`.
private func table(_ rows: [Row]) throws -> FeatureTable {
    let schema = Schema(fields: [Field(name: "OBJECTID", type: .objectID, nullable: false), Field(name: "kind", type: .string),
                                 Field(name: "agency", type: .integer), Field(name: "speed", type: .double), Field(name: "when", type: .date)])
    var builder = try FeatureTableBuilder(name: "T", schema: schema, objectIDFieldIndex: 0, assignsObjectIDs: false, geometryType: .point,
                                          spatialReference: 4326, startTimeFieldIndex: 4, endTimeFieldIndex: nil)
    for (index, row) in rows.enumerated() {
        try builder.append(geometry: Point(x: row.x, y: 0), values: [
            .int(Int64(index + 1)), row.kind.map(AttributeValue.string) ?? .null, row.agency.map(AttributeValue.int) ?? .null,
            row.speed.map(AttributeValue.double) ?? .null, row.when.map { .date(milliseconds: $0) } ?? .null])
    }
    return builder.build()
}

/// A statistics query from REST text parameters, as a server reads it.
private func query(_ parameters: [(String, String)]) throws -> FeatureQuery {
    try FeatureQuery(parameters: parameters.map { (name: $0.0, value: $0.1) })
}

private func statisticsRows(_ result: FeatureQueryResult) -> FeatureStatisticsResult? {
    if case .statistics(let rows) = result { return rows }
    return nil
}

@Suite("Statistics behind a feature layer: the REST engine, its rules and paging", .bounded)
struct TableStatisticsEngineTests {
    let engine = FeatureQueryEngine(maxRecordCount: 1000, statistics: TableStatisticsEngine())

    /// where, time and geometry select the rows first; each group's count, sum, average, max and min equal a brute-force computation written here.
    @Test func filtersApplyFirstAndValuesMatchBruteForce() throws {
        let data = rows(600)
        let layer = try table(data)
        let result = try engine.run(try query([
            ("outStatistics", #"[{"statisticType":"count","onStatisticField":"speed"},{"statisticType":"sum","onStatisticField":"speed"},"#
                + #"{"statisticType":"avg","onStatisticField":"speed","outStatisticFieldName":"mean"},{"statisticType":"max","onStatisticField":"when"},"#
                + #"{"statisticType":"min","onStatisticField":"kind"}]"#),
            ("groupByFieldsForStatistics", "agency"), ("orderByFields", "agency DESC"), ("where", "speed > 10"),
            ("time", "1100000,1400000"), ("geometry", "2,-1,12,1"), ("geometryType", "esriGeometryEnvelope")]), on: layer)
        let rows = try #require(statisticsRows(result))
        #expect(rows.fields.map(\.name) == ["agency", "COUNT_speed", "SUM_speed", "mean", "MAX_when", "MIN_kind"])
        #expect(rows.fields.map(\.type) == [.integer, .integer, .double, .double, .date, .string])
        let selected = data.filter { row in
            (row.speed ?? 0) > 10 && row.when.map { $0 >= 1_100_000 && $0 <= 1_400_000 } == true && row.x >= 2 && row.x <= 12
        }
        var expected: [[AttributeValue]] = []
        for agency in Set(selected.compactMap(\.agency)).sorted(by: >) {
            let members = selected.filter { $0.agency == agency }
            let speeds = members.compactMap(\.speed)
            let total = speeds.reduce(0, +)
            let kinds = members.compactMap(\.kind).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            expected.append([.int(agency), .int(Int64(speeds.count)), .double(total), .double(total / Double(speeds.count)),
                             .date(milliseconds: members.compactMap(\.when).max() ?? 0), kinds.first.map(AttributeValue.string) ?? .null])
        }
        #expect(!expected.isEmpty)
        #expect(rows.rows == expected)
        #expect(!rows.exceededTransferLimit)
    }

    /// ArcGIS's rules: each refusal is a 400 naming the parameter at fault.
    @Test func refusalsNameTheParameter() throws {
        let layer = try table(rows(20))
        let count = #"[{"statisticType":"count","onStatisticField":"speed"}]"#
        /// The statistics engine's own refusal, of the kind `kind` matches.
        func refused(_ kind: @escaping @Sendable (StatisticsError) -> Bool) -> @Sendable (FeatureQueryError) -> Bool {
            { error in
                guard case .statistics(_, let underlying) = error, let inner = underlying.error as? StatisticsError else { return false }
                return kind(inner)
            }
        }
        let cases: [([(String, String)], String, String, @Sendable (FeatureQueryError) -> Bool)] = [
            ([("outStatistics", count), ("groupByFieldsForStatistics", "kind"), ("orderByFields", "speed DESC")], "orderByFields", "neither a group-by field nor a statistic", refused { if case .unknownOrderBy = $0 { true } else { false } }),
            ([("outStatistics", count), ("orderByFields", "OBJECTID")], "orderByFields", "neither a group-by field nor a statistic", refused { if case .unknownOrderBy = $0 { true } else { false } }),
            ([("outStatistics", count), ("having", "speed > 3")], "having", "not inside an aggregate", refused { if case .having = $0 { true } else { false } }),
            ([("outStatistics", count), ("having", "AVG(kind) > 3")], "having", "numeric", refused { if case .having = $0 { true } else { false } }),
            ([("outStatistics", count), ("having", "COUNT(speed) >")], "having", "position", refused { if case .having = $0 { true } else { false } }),
            ([("havingClause", "COUNT(speed) > 1")], "havingClause", "only with outStatistics", { $0 == .havingWithoutStatistics(parameter: "havingClause") }),
            ([("outStatistics", #"[{"statisticType":"avg","onStatisticField":"kind"}]"#)], "outStatistics", "numeric field", refused { if case .nonNumericField(.avg, "kind", _) = $0 { true } else { false } }),
            ([("outStatistics", #"[{"statisticType":"sum","onStatisticField":"wind"}]"#)], "outStatistics", "unknown field 'wind'", refused { if case .unknownStatisticField(field: "wind", _) = $0 { true } else { false } }),
            ([("outStatistics", #"[{"statisticType":"percentile_cont","onStatisticField":"speed","statisticParameters":{"value":0.5}}]"#)],
             "outStatistics", "not supported", { $0 == .statisticTypeNotSupported("percentile_cont") }),
            ([("outStatistics", count), ("groupByFieldsForStatistics", "colour")], "groupByFieldsForStatistics", "unknown group-by field 'colour'", refused { $0 == .unknownGroupByField("colour") }),
            ([("outStatistics", count), ("groupByFieldsForStatistics", "kind,KIND")], "groupByFieldsForStatistics", "listed twice", refused { if case .duplicateGroupByField = $0 { true } else { false } }),
            ([("returnDistinctValues", "true"), ("outFields", "*")], "outFields", "returnDistinctValues needs outFields", { $0 == .distinctWithoutOutFields }),
        ]
        for (parameters, parameter, reason, matches) in cases {
            var error: FeatureQueryError?
            do { _ = try engine.run(try query(parameters), on: layer) } catch let caught as FeatureQueryError { error = caught }
            #expect(error.map(matches) == true, "\(parameters): \(String(describing: error))")
            #expect(error?.parameter == parameter, "\(parameters): \(String(describing: error))")
            #expect(error?.description.contains(reason) == true, "\(parameters): \(String(describing: error))")
            #expect(error?.arcGISError.json().isEmpty == false)
        }
    }

    /// Groups are paged like features: resultOffset/resultRecordCount and maxRecordCount cut the ordered rows, exceededTransferLimit says more remain.
    @Test func groupsArePaged() throws {
        let layer = try table(rows(300))
        let small = FeatureQueryEngine(maxRecordCount: 4, statistics: TableStatisticsEngine())
        var parameters = [("outStatistics", #"[{"statisticType":"count","onStatisticField":"*","outStatisticFieldName":"n"}]"#),
                          ("groupByFieldsForStatistics", "kind,agency"), ("orderByFields", "kind DESC")]
        let whole = try #require(statisticsRows(try engine.run(try query(parameters), on: layer)))
        #expect(whole.rows.count == 18)    // 6 kinds (null included) × 3 agencies
        var paged: [[AttributeValue]] = []
        var offset = 0
        while true {
            let page = try #require(statisticsRows(try small.run(try query(parameters + [("resultOffset", String(offset))]), on: layer)))
            paged += page.rows
            offset += page.rows.count
            #expect(page.exceededTransferLimit == (offset < 18))
            #expect(page.rows.count <= 4)
            if !page.exceededTransferLimit { break }
        }
        #expect(paged == whole.rows)
        parameters.append(("resultRecordCount", "2"))
        let two = try #require(statisticsRows(try engine.run(try query(parameters), on: layer)))
        #expect(two.rows == Array(whole.rows.prefix(2)) && two.exceededTransferLimit)
        let text = String(decoding: FeatureSetWriter.write(.statistics(two), format: .json), as: UTF8.self)
        #expect(text.contains(#""exceededTransferLimit":true,"features":["#))
        let page = try FeatureSetReader.page(Array(text.utf8))
        #expect(page.exceededTransferLimit && page.features.count == 2)
    }

    /// The client's pager pages statistics by resultOffset in a stable order (the requested one, then the group fields), or asks once without pagination.
    @Test func pagerPagesGroups() throws {
        let layer = try table(rows(10))
        var request = FeatureQuery(whereClause: "speed > 1")
        request.outStatistics = [EntityStreamFeatures.StatisticDefinition(type: .count, field: "speed")]
        request.groupByFieldsForStatistics = ["kind", "agency"]
        request.orderBy = [OrderByField(field: "agency", descending: true)]
        var pager = FeatureQueryPager(query: request, layer: LayerDescription(table: layer, maxRecordCount: 5, supportsStatistics: true))
        #expect(pager.strategy == .pages(size: 5))
        let next = pager.nextRequest()
        let first = try #require(next)
        #expect(first.orderBy == [OrderByField(field: "agency", descending: true), OrderByField(field: "kind")])
        #expect(first.resultOffset == 0 && first.resultRecordCount == 5)
        try pager.received(featureCount: 5, exceededTransferLimit: true)
        let second = pager.nextRequest()
        #expect(second?.resultOffset == 5)
        try pager.received(featureCount: 2, exceededTransferLimit: false)
        #expect(pager.isFinished && pager.delivered == 7)
        var single = FeatureQueryPager(query: request, layer: LayerDescription(table: layer, maxRecordCount: 5, supportsPagination: false, supportsStatistics: true))
        #expect(single.strategy == .single)
        _ = single.nextRequest()
        #expect(throws: FeatureQueryPagerError.self) { try single.received(featureCount: 5, exceededTransferLimit: true) }
    }

    /// returnDistinctValues without statistics answers the distinct combinations of outFields, ordered.
    @Test func distinctValues() throws {
        let data = rows(200)
        let result = try #require(statisticsRows(try engine.run(try query([("returnDistinctValues", "true"), ("outFields", "agency"),
                                                                           ("orderByFields", "agency DESC"), ("where", "kind = 'plow'")]),
                                                          on: try table(data))))
        #expect(result.fields.map(\.name) == ["agency"])
        let expected = Set(data.filter { $0.kind == "plow" }.compactMap(\.agency)).sorted(by: >).map { [AttributeValue.int($0)] }
        #expect(result.rows == expected)
    }

    /// A request goes to a server under its final output names and comes back, through the JSON a server writes, as the same records.
    @Test func requestRoundTripsThroughREST() throws {
        let layer = try table(rows(250))
        let request = try StatisticsRequest(statisticSpecs: ["avg:speed", "count:speed:n", "min:when", "max:kind"], groupBy: ["KIND"],
                                            orderBy: ["n DESC"], having: "COUNT(*) > 3")
        let plan = try StatisticsPlan(request, schema: layer.schema)
        var restQuery = FeatureQuery()
        request.apply(to: &restQuery, plan: plan)
        let parameters = restQuery.parameters.map { (name: $0.0, value: $0.1) }
        #expect(parameters.contains { $0.name == "outStatistics" && $0.value.contains(#""outStatisticFieldName":"AVG_speed""#) })
        let answer = try engine.run(try FeatureQuery(parameters: parameters), on: layer)
        let page = try FeatureSetReader.page(FeatureSetWriter.write(answer, format: .json))
        let remote = try plan.records(from: page)
        let local = plan.records(from: try #require(statisticsRows(answer)))
        var accumulator = plan.makeAccumulator()
        for row in 0..<layer.count { accumulator.add(layer.row(row)) }
        #expect(remote == local)
        #expect(local == accumulator.finish().records)
        #expect(local.first?.group.map(\.name) == ["kind"])
        #expect(local.first?.statistics.map(\.name) == ["AVG_speed", "n", "MIN_when", "MAX_kind"])
    }

    /// Records read from a server's page: counts sent as doubles become integers, averages sent as integers doubles; a missing statistic is an error.
    @Test func readingAServerPage() throws {
        let schema = Schema(fields: [Field(name: "Kind", type: .string), Field(name: "speed", type: .double)])
        let plan = try StatisticsPlan(try StatisticsRequest(statisticSpecs: ["count:speed", "avg:speed"], groupBy: ["kind"]), schema: schema)
        let body = #"{"fields":[{"name":"KIND","type":"esriFieldTypeString"},{"name":"count_speed","type":"esriFieldTypeDouble"},"#
            + #"{"name":"AVG_SPEED","type":"esriFieldTypeInteger"}],"features":[{"attributes":{"KIND":"a","count_speed":3.0,"AVG_SPEED":2}}]}"#
        let records = try plan.records(from: try FeatureSetReader.page(Array(body.utf8)))
        #expect(records == [StatisticsRecord(group: [NamedValue(name: "Kind", value: .string("a"))],
                                             statistics: [NamedValue(name: "COUNT_speed", value: .int(3)), NamedValue(name: "AVG_speed", value: .double(2))])])
        let missing = #"{"fields":[{"name":"Kind","type":"esriFieldTypeString"}],"features":[]}"#
        let noStatistic = #expect(throws: FeatureSetReadError.invalid(.noStatistic("COUNT_speed", fields: ["Kind"]))) {
            _ = try plan.records(from: try FeatureSetReader.page(Array(missing.utf8)))
        }
        #expect(noStatistic?.description == "unexpected response: the statistics answer has no statistic 'COUNT_speed' (fields: Kind)")
        let noGroup = #"{"fields":[{"name":"COUNT_speed","type":"esriFieldTypeDouble"},{"name":"AVG_speed","type":"esriFieldTypeDouble"}],"features":[]}"#
        let noGroupError = #expect(throws: FeatureSetReadError.invalid(.noGroupByField("Kind", fields: ["COUNT_speed", "AVG_speed"]))) {
            _ = try plan.records(from: try FeatureSetReader.page(Array(noGroup.utf8)))
        }
        #expect(noGroupError?.description == "unexpected response: the statistics answer has no group-by field 'Kind' (fields: COUNT_speed, AVG_speed)")
        let fractional = #"{"fields":[{"name":"Kind","type":"esriFieldTypeString"},{"name":"COUNT_speed","type":"esriFieldTypeDouble"},"#
            + #"{"name":"AVG_speed","type":"esriFieldTypeDouble"}],"features":[{"attributes":{"Kind":"a","COUNT_speed":2.5,"AVG_speed":2}}]}"#
        let fraction = #expect(throws: FeatureSetReadError.invalid(.fractionalCount(index: 0, name: "COUNT_speed", value: 2.5))) {
            _ = try plan.records(from: try FeatureSetReader.page(Array(fractional.utf8)))
        }
        #expect(fraction?.description == "unexpected response: features[0]: the count 'COUNT_speed' is 2.5, not a whole number")
    }
}

@Suite("Statistics requests checked without a schema", .bounded)
struct RequestCheckTests {
    static let schema = Schema(fields: [Field(name: "State", type: .string), Field(name: "Diabetes", type: .double)])

    /// Each request the check refuses is refused by the plan too, with the same message when the schema adds nothing.
    @Test(arguments: [
        (["avg:Diabetes"], ["State"], ["Diabetes"], nil as String?, "neither a group-by field nor a statistic"),
        (["avg:Diabetes", "count:Diabetes:AVG_Diabetes"], [], [], nil, "used twice"),
        (["avg:Diabetes"], ["State", "state"], [], nil, "listed twice"),
        (["avg:Diabetes:State"], ["State"], [], nil, "used twice"),
        (["avg:Diabetes"], ["State"], ["state", "STATE DESC"], nil, "twice"),
        (["avg:Diabetes"], [], [], "Diabetes > 3", "not inside an aggregate"),
        (["avg:Diabetes"], [], [], "AVG(*) > 3", "only COUNT takes '*'"),
        (["avg:Diabetes"], [], [], "COUNT(*) >", "position"),
        (["sum:*"], [], [], nil, "only COUNT takes '*'"),
    ])
    func refusedBeforeAnySchema(specs: [String], groupBy: [String], orderBy: [String], having: String?, reason: String) throws {
        let request = try StatisticsRequest(statisticSpecs: specs, groupBy: groupBy, orderBy: orderBy, having: having)
        var checked: StatisticsError?
        do { try request.check() } catch { checked = error }
        var planned: StatisticsError?
        do { _ = try StatisticsPlan(request, schema: Self.schema) } catch { planned = error }
        #expect(checked?.description.contains(reason) == true, "\(String(describing: checked))")
        #expect(checked == planned)
    }

    /// A request whose only fault needs the schema passes the check and fails the plan.
    @Test func schemaFaultsPassTheCheck() throws {
        let request = try StatisticsRequest(statisticSpecs: ["avg:State", "count:Diabetes"], groupBy: ["State"], orderBy: ["COUNT_diabetes DESC"],
                                            having: "AVG(Diabetes) > 1")
        try request.check()
        #expect(throws: StatisticsError.nonNumericField(type: .avg, field: "State", fieldType: .string)) { _ = try StatisticsPlan(request, schema: Self.schema) }
    }
}
