import EntityStream
import EntityStreamCore
import EntityStreamFeatures
import EntityStreamHotSpots
import EntityStreamModel
import EntityStreamStatistics
import EntityStreamTestSupport
import Testing
import EntityStreamAnalyses

private func refusal(_ line: String) -> ControlCommandError? {
    do throws(ControlCommandError) {
        _ = try ControlCommandRegistry.standard.parse(line: Array(line.utf8))
        return nil
    } catch {
        return error
    }
}

private func rule(_ error: some CommandRuleError) -> ControlCommandError.Problem {
    .command(CommandRule(error))
}

/// The analyses' commands refuse their own mistakes by case: the rules they share as ``ControlCommandError/Problem``
/// cases, their own as their error enum's case, each with the words the response has always said.
@Suite("Analysis command errors by case", .bounded)
struct AnalysisCommandErrorTests {
    @Test(arguments: [
        // identify
        (#""command":"identify","x":1,"y":2,"points":[]"#, .conflictingGroups(["x", "y"], ["points"]),
         #"give either "x" and "y" or "points", not both"#),
        (#""command":"identify","points":{"x":1}"#, rule(IdentifyCommandError.pointsNotAnArray),
         #""points" must be an array of {"x":…,"y":…} objects"#),
        (#""command":"identify","points":[]"#, .countOutOfRange(member: "points", range: 1...1_000_000, count: 0),
         #""points" must hold 1 to 1000000 points, not 0"#),
        (#""command":"identify","points":[{"x":1,"y":2},3]"#, .elementNotAnObject(member: "points", index: 1, expected: #"{"x":…,"y":…}"#),
         #"points[1] must be an object {"x":…,"y":…}"#),
        (#""command":"identify","points":[{"x":1}]"#, rule(IdentifyCommandError.pointAt(index: 0, .missing("y"))), #"points[0]: missing "y""#),
        (#""command":"identify","y":2"#, rule(IdentifyCommandError.noPoint), #"give the point as "x" and "y" (or several as "points")"#),
        (#""command":"identify","x":true,"y":2"#, rule(IdentifyCommandError.point(.notAFiniteNumber("x", .bool(true)))),
         #""x" must be a finite number, not true"#),
        // query-observations
        (#""command":"query-observations","layer":"http://127.0.0.1:9/x/MapServer/0","trackIds":["A"]"#,
         rule(QueryCommandError.storeMembersWithLayer),
         #""timeField" and "trackIds" apply to the store, not to a layer (its time is its own timeInfo)"#),
        // statistics
        (#""command":"statistics","groupBy":"agency""#, rule(StatisticsCommandError.missingStatistics),
         #""statistics" is required: a list such as [{"type":"avg","field":"speed"}] or ["count:*"]"#),
        (#""command":"statistics","statistics":[]"#, rule(StatisticsCommandError.statisticsNotAList),
         #""statistics" must be a non-empty array of {"type","field","alias"} objects or "TYPE:FIELD[:ALIAS]" strings"#),
        (#""command":"statistics","statistics":[3]"#,
         .elementNotAnObject(member: "statistics", index: 0, expected: #"{"type","field","alias"} or a "TYPE:FIELD[:ALIAS]" string"#),
         #"statistics[0] must be an object {"type","field","alias"} or a "TYPE:FIELD[:ALIAS]" string"#),
        (#""command":"statistics","statistics":["count:*",{"type":"avg","field":"speed","colour":"red"}]"#,
         rule(StatisticsCommandError.definitionMember(index: 1, unknown: "colour")),
         "statistics[1]: unknown member 'colour' (expected type, field, alias)"),
        (#""command":"statistics","statistics":[{"type":1,"field":"speed"}]"#, rule(StatisticsCommandError.typeNotAString(index: 0)),
         "statistics[0].type must be a string (count, sum, min, max, avg, stddev or var)"),
        (#""command":"statistics","statistics":[{"type":"median","field":"speed"}]"#,
         rule(StatisticsCommandError.unknownType(index: 0, name: "median")),
         "statistics[0].type: unknown statistic type 'median' (expected count, sum, min, max, avg, stddev or var)"),
        (#""command":"statistics","statistics":[{"type":"avg"}]"#, rule(StatisticsCommandError.missingField(index: 0)),
         #"statistics[0].field must be a field name (or "*" with count)"#),
        (#""command":"statistics","statistics":[{"type":"avg","field":"speed","alias":" "}]"#, rule(StatisticsCommandError.emptyAlias(index: 0)),
         "statistics[0].alias is empty"),
        (#""command":"statistics","statistics":[{"type":"avg","field":"speed","alias":3}]"#, rule(StatisticsCommandError.aliasNotAString(index: 0)),
         "statistics[0].alias must be a string"),
        (#""command":"statistics","statistics":["sum:*"]"#, rule(StatisticsCommandError.request(.allRowsNotCountable(.sum))),
         "SUM of '*' is not allowed: only COUNT takes '*' (all rows)"),
        (#""command":"statistics","statistics":["avg:speed"],"layer":"http://127.0.0.1:9/x/MapServer/0","of":"entities""#,
         rule(StatisticsCommandError.storeMembersWithLayer),
         #""of", "timeField" and "trackIds" apply to the store, not to a layer (it computes over its own rows and time)"#),
        (#""command":"statistics","statistics":["avg:speed"],"of":"everything""#, rule(StatisticsCommandError.unknownRows("everything")),
         #""of" must be "entities" (the latest observation of each entity) or "observations" (every retained one), not 'everything'"#),
        // hotspots
        (#""command":"hotspots","task":"http://127.0.0.1:9/arcgis/rest/services/X/GPServer/T","cellSize":5"#,
         rule(HotSpotsCommandError.localMemberWithTask("cellSize")),
         #""cellSize" applies to the local engine, not to a geoprocessing task (send "query" or "timeExtent")"#),
        (#""command":"hotspots","task":"http://127.0.0.1:9/arcgis/rest/services/X/GPServer/T","timeExtent":{"start":0,"end":null}"#,
         rule(HotSpotsCommandError.taskTimeExtentOpen), #""timeExtent" for a task needs both ends (the sample's query is strict at both)"#),
        (#""command":"hotspots","query":"1=1""#, rule(HotSpotsCommandError.taskMemberWithoutTask("query")),
         #""query" applies to a geoprocessing task: give "task" too"#),
        (#""command":"hotspots","cellSize":0"#, rule(HotSpotsCommandError.notAPositiveDistance(member: "cellSize")),
         #""cellSize" must be a positive distance"#),
        (#""command":"hotspots","distanceBand":0"#, rule(HotSpotsCommandError.notAPositiveDistance(member: "distanceBand")),
         #""distanceBand" must be a positive distance"#),
        (#""command":"hotspots","aggregation":"collect","cellSize":10"#, rule(HotSpotsCommandError.cellSizeWithCollect),
         #""cellSize" applies to the fishnet aggregation, not to collect"#),
        (#""command":"hotspots","aggregation":"hexagon""#, rule(HotSpotsCommandError.unknownAggregation("hexagon")),
         #""aggregation" must be "fishnet" or "collect", not 'hexagon'"#),
        (#""command":"hotspots","valueField":"speed","cellSize":50"#, rule(HotSpotsCommandError.weightedWithIncidentMembers),
         #""valueField" analyses weighted points; "aggregation" and "cellSize" apply to incidents (no valueField)"#),
    ] as [(String, ControlCommandError.Problem, String)])
    func refusedByCase(members: String, expected: ControlCommandError.Problem, message: String) {
        guard let error = refusal(#"{"id":7,\#(members)}"#) else { Issue.record("accepted \(members)"); return }
        #expect(error.id == .int(7))
        #expect(error.problem == expected)
        #expect(error.message == message)
    }

    /// Refusals that carry an engine's typed error keep it as thrown.
    @Test func engineErrorsStayTyped() {
        let tooMany = refusal(#"{"id":1,"command":"statistics","statistics":[\#(Array(repeating: #""count:*""#, count: StatisticsLimits.maximumStatistics + 1).joined(separator: ","))]}"#)
        #expect(tooMany?.problem == .tooMany(member: "statistics", maximum: StatisticsLimits.maximumStatistics))
        #expect(tooMany?.message == "\"statistics\" lists more than \(StatisticsLimits.maximumStatistics) statistics")

        let definition = refusal(#"{"id":1,"command":"statistics","statistics":["count:*","avg"]}"#)
        guard case .command(let definitionRule)? = definition?.problem,
              case .definition(index: 1, .malformedStatistic(text: "avg", _))? = definitionRule.error as? StatisticsCommandError
        else { Issue.record("\(String(describing: definition))"); return }
        #expect(definition?.message.hasPrefix("statistics[1]: invalid statistic 'avg': ") == true)

        let order = refusal(#"{"id":1,"command":"statistics","statistics":["avg:speed"],"groupBy":"agency","orderBy":"speed DESC"}"#)
        guard case .command(let orderRule)? = order?.problem,
              case .request(.unknownOrderBy(name: "speed", _))? = orderRule.error as? StatisticsCommandError
        else { Issue.record("\(String(describing: order))"); return }

        let direction = refusal(#"{"id":1,"command":"statistics","statistics":["avg:speed"],"orderBy":["DESC"]}"#)
        #expect(direction?.problem == rule(StatisticsCommandError.orderBy(.malformedOrdering(text: "DESC", reason: "expected NAME, NAME ASC or NAME DESC"))))
        #expect(direction?.message == "orderBy: invalid order-by term 'DESC': expected NAME, NAME ASC or NAME DESC")

        let layerOrder = refusal(#"{"id":1,"command":"query-observations","layer":"http://127.0.0.1:9/x/MapServer/0","orderBy":"speed sideways"}"#)
        guard case .command(let layerRule)? = layerOrder?.problem, case .orderBy? = layerRule.error as? QueryCommandError
        else { Issue.record("\(String(describing: layerOrder))"); return }

        let instant = refusal(#"{"id":1,"command":"hotspots","task":"http://127.0.0.1:9/arcgis/rest/services/X/GPServer/T","timeExtent":[5,5]}"#)
        guard case .command(let instantRule)? = instant?.problem, case .taskTimeExtent? = instantRule.error as? HotSpotsCommandError
        else { Issue.record("\(String(describing: instant))"); return }
        #expect(instant?.message.hasPrefix("timeExtent: ") == true)
    }

    /// One command's rule equals only the same rule of the same type, and hashes with it.
    @Test func rulesCompareByTypeAndCase() {
        let collect = rule(HotSpotsCommandError.cellSizeWithCollect)
        #expect(collect == rule(HotSpotsCommandError.cellSizeWithCollect))
        #expect(collect != rule(HotSpotsCommandError.weightedWithIncidentMembers))
        #expect(rule(StatisticsCommandError.storeMembersWithLayer) != rule(QueryCommandError.storeMembersWithLayer))
        #expect(rule(StatisticsCommandError.emptyAlias(index: 0)) != rule(StatisticsCommandError.emptyAlias(index: 1)))
        let problems: Set<ControlCommandError.Problem> = [collect, rule(HotSpotsCommandError.cellSizeWithCollect),
                                                          rule(QueryCommandError.storeMembersWithLayer), .missingJob]
        #expect(problems.count == 3)
    }

    /// A remote job the client gave up on keeps why, and the client's error, as typed values.
    @Test func remoteJobGaveUpByCase() {
        let failure = GeoprocessingError.notAGeoprocessingTask(redactedURL: "http://h/arcgis/rest/services/X/MapServer/0")
        let error = RemoteHotSpotError.gaveUp(jobID: "j1", task: "http://h/arcgis/rest/services/X/GPServer/T",
                                              .requestsFailed(count: 3, last: .cancel(GPClientFailure(failure))))
        #expect(error != RemoteHotSpotError.gaveUp(jobID: "j1", task: "http://h/arcgis/rest/services/X/GPServer/T",
                                                   .requestsFailed(count: 3, last: .request(GPClientFailure(failure)))))
        #expect(error.description == "job j1 at http://h/arcgis/rest/services/X/GPServer/T: 3 requests failed in a row; the last: cancel: "
                + "invalid geoprocessing task URL: 'http://h/arcgis/rest/services/X/MapServer/0' is not a geoprocessing task (…/GPServer/<task>)")
    }
}
