import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamStatistics
import Testing
import EntityStreamModel
import EntityStreamAnalyses

private let schema = Schema(fields: [Field(name: "vehiclename", type: .string), Field(name: "t", type: .date),
                                     Field(name: "vehicletype", type: .string), Field(name: "agency", type: .integer),
                                     Field(name: "speed", type: .double)],
                            trackIDField: "vehiclename", startTimeField: "t")

/// One observation as the test knows it.
private struct Fix {
    var vehicle: String
    var t: Int64
    var type: String?
    var agency: Int64?
    var speed: Double?

    var observation: Observation {
        Observation(geometry: Point(x: Double(agency ?? 0), y: 1, wkid: 4326),
                    attributes: [.string(vehicle), .date(milliseconds: t), type.map(AttributeValue.string) ?? .null,
                                 agency.map(AttributeValue.int) ?? .null, speed.map(AttributeValue.double) ?? .null],
                    receivedAt: t)
    }
}

/// `count` fixes of 23 vehicles; types and agencies fixed per vehicle (a few without a type), dyadic speeds (sums exact), some null.
private func fixes(_ count: Int, seed: UInt64) -> [Fix] {
    var random = SplitMix64(seed: seed)
    let types = ["plow", "salt truck", "grader", "Loader"]
    return (0..<count).map { index in
        let vehicle = random.next(below: 23)
        return Fix(vehicle: "V\(vehicle)", t: 1_000 + Int64(index) * 10, type: vehicle % 9 == 8 ? nil : types[vehicle % 4],
                   agency: Int64(vehicle % 3), speed: random.chance(0.1) ? nil : Double(random.next(below: 240)) / 8)
    }
}

/// The test's own group-by: per key, the non-null speeds and the row count, in key order (NULL first, then binary order).
private func grouped(_ rows: [Fix], key: (Fix) -> String?) -> [(key: String?, speeds: [Double], rows: Int)] {
    var groups: [String?: (speeds: [Double], rows: Int)] = [:]
    for row in rows {
        var entry = groups[key(row)] ?? ([], 0)
        if let speed = row.speed { entry.speeds.append(speed) }
        entry.rows += 1
        groups[key(row)] = entry
    }
    return groups.map { (key: $0.key, speeds: $0.value.speeds, rows: $0.value.rows) }.sorted { a, b in
        guard let x = a.key else { return b.key != nil }
        guard let y = b.key else { return false }
        return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
    }
}

/// The sample standard deviation, two-pass.
private func deviation(_ values: [Double]) -> Double? {
    guard values.count > 1 else { return nil }
    let mean = values.reduce(0, +) / Double(values.count)
    return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
}

private func results(_ events: [AnalysisEvent]) -> [AnalysisEvent] { events.filter { $0.phase == .result } }

private func close(_ a: Double?, _ b: Double?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return abs(a - b) <= 1e-12 * max(1, abs(a), abs(b))
}

@Suite("statistics over the live store (control command)", .bounded)
struct StatisticsCommandTests {
    /// Over every retained observation and over each entity's latest one, count, average and deviation of speed by type equal the test's own computation.
    @Test func observationsAndEntities() async throws {
        let harness = await AnalysisHarness(schema: schema)
        let data = fixes(2_000, seed: 1)
        await harness.ingest(data.map(\.observation))
        var latest: [String: Fix] = [:]
        for fix in data { latest[fix.vehicle] = fix }
        for (of, rows) in [("observations", data), ("entities", Array(latest.values))] {
            let events = AnalysisHarness.analyses(await harness.command(
                #"{"id":"\#(of)","command":"statistics","of":"\#(of)","statistics":[{"type":"count","field":"speed"},{"type":"avg","field":"speed"},"# +
                #"{"type":"stddev","field":"speed","alias":"spread"},"count:*"],"groupBy":"vehicletype"}"#))
            #expect(events.first?.phase == .accepted && events.last?.phase == .summary, "\(events.last?.members ?? JSONObject())")
            let expected = grouped(rows) { $0.type }
            let records = results(events)
            #expect(records.count == expected.count)
            for (record, group) in zip(records, expected) {
                #expect(record.members["group"] == .object(JSONObject([("vehicletype", group.key.map(JSONValue.string) ?? .null)])))
                let statistics = try #require(record.members["statistics"]?.objectValue)
                #expect(statistics.keys == ["COUNT_speed", "AVG_speed", "spread", "COUNT_ALL"])
                #expect(statistics["COUNT_speed"] == .int(Int64(group.speeds.count)))
                #expect(statistics["COUNT_ALL"] == .int(Int64(group.rows)))
                #expect(statistics["AVG_speed"] == .double(group.speeds.reduce(0, +) / Double(group.speeds.count)))
                #expect(close(statistics["spread"]?.doubleValue, deviation(group.speeds)))
            }
            let summary = try #require(events.last?.members)
            #expect(summary["of"] == .string(of) && summary["rows"] == .int(Int64(rows.count)))
            #expect(summary["groups"] == .int(Int64(expected.count)) && summary["records"] == .int(Int64(expected.count)))
            #expect(summary["rowsOverGroupLimit"] == .int(0) && summary["ignoredValues"] == .int(0))
            #expect(summary["statisticNames"] == .array([.string("COUNT_speed"), .string("AVG_speed"), .string("spread"), .string("COUNT_ALL")]))
            #expect(summary["stream"]?["observations"] == .int(2_000))
        }
        await harness.close()
    }

    /// Two group fields, an alias ordered descending, having, where and a time extent select and order the records as the test computes them; dates come out as epoch ms.
    @Test func orderHavingWhereTime() async throws {
        let harness = await AnalysisHarness(schema: schema)
        let data = fixes(1_500, seed: 2)
        await harness.ingest(data.map(\.observation))
        let events = AnalysisHarness.analyses(await harness.command(
            #"{"id":3,"command":"statistics","of":"observations","statistics":[{"type":"count","field":"vehiclename","alias":"plows"},"max:t"],"# +
            #""groupBy":["vehicletype","agency"],"orderBy":["plows DESC"],"having":"COUNT(vehiclename) > 20 AND AVG(speed) >= 0","# +
            #""where":"speed > 2","timeExtent":{"start":3000,"end":12000}}"#))
        let selected = data.filter { ($0.speed ?? 0) > 2 && $0.t >= 3_000 && $0.t <= 12_000 }
        var groups: [String: (type: String?, agency: Int64?, count: Int, last: Int64)] = [:]
        for fix in selected {
            let key = "\(fix.type ?? "∅")|\(fix.agency ?? -1)"
            var entry = groups[key] ?? (fix.type, fix.agency, 0, .min)
            entry.count += 1
            entry.last = max(entry.last, fix.t)
            groups[key] = entry
        }
        let expected = groups.values.filter { $0.count > 20 }.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            if a.type != b.type {
                guard let x = a.type else { return true }
                guard let y = b.type else { return false }
                return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            }
            return (a.agency ?? -1) < (b.agency ?? -1)
        }
        let records = results(events)
        #expect(!expected.isEmpty && records.count == expected.count)
        for (record, group) in zip(records, expected) {
            #expect(record.members["group"] == .object(JSONObject([("vehicletype", group.type.map(JSONValue.string) ?? .null),
                                                                   ("agency", group.agency.map(JSONValue.int) ?? .null)])))
            #expect(record.members["statistics"] == .object(JSONObject([("plows", .int(Int64(group.count))), ("MAX_t", .int(group.last))])))
        }
        #expect(events.last?.members["timeField"] == .string("t"))
        await harness.close()
    }

    /// What the command alone shows is refused as a response naming it; what needs the schema fails the job with the engine's message.
    @Test func refusalsAndFailures() async throws {
        let harness = await AnalysisHarness(schema: schema)
        await harness.ingest(fixes(50, seed: 3).map(\.observation))
        let refused: [(String, String)] = [
            (#""groupBy":"agency""#, "\"statistics\" is required"),
            (#""statistics":[{"type":"median","field":"speed"}]"#, "unknown statistic type 'median'"),
            (#""statistics":["avg:speed"],"groupBy":"agency","orderBy":"speed DESC""#, "neither a group-by field nor a statistic"),
            (#""statistics":["avg:speed"],"having":"speed > 3""#, "not inside an aggregate"),
            (#""statistics":["avg:speed"],"having":"COUNT(*) >""#, "having clause error at position"),
            (#""statistics":["sum:*"]"#, "only COUNT takes '*'"),
            (#""statistics":[{"type":"avg","field":"speed","colour":"red"}]"#, "unknown member 'colour'"),
            (#""statistics":["avg:speed"],"of":"everything""#, "\"of\" must be"),
            (#""statistics":["avg:speed"],"where":"speed >""#, "where:"),
            (#""statistics":["avg:speed"],"bins":3"#, "unknown member 'bins'"),
            (#""statistics":["avg:speed"],"layer":"http://127.0.0.1:9/x/MapServer/0","of":"entities""#, "apply to the store"),
        ]
        for (index, (members, message)) in refused.enumerated() {
            let events = await harness.command(#"{"id":\#(index),"command":"statistics",\#(members)}"#)
            let response = try #require(AnalysisHarness.response(events), "\(members)")
            #expect(!response.ok && response.id == .int(Int64(index)))
            #expect(response.error?.contains(message) == true, "\(members): \(response.error ?? "")")
            #expect(AnalysisHarness.analyses(events).isEmpty)
        }
        let failed: [(String, String)] = [
            (#""statistics":["avg:vehicletype"]"#, "AVG needs a numeric field, but 'vehicletype' is a string field"),
            (#""statistics":["avg:wind"]"#, "unknown field 'wind'"),
            (#""statistics":["count:*"],"groupBy":"colour""#, "unknown group-by field 'colour'"),
            (#""statistics":["count:*"],"having":"AVG(vehicletype) > 1""#, "numeric"),
            (#""statistics":["count:*"],"timeField":"colour","of":"observations""#, "unknown field 'colour'"),
            (#""statistics":["count:*"],"where":"colour = 1""#, "colour"),
        ]
        for (members, message) in failed {
            let events = AnalysisHarness.analyses(await harness.command(#"{"id":"f","command":"statistics",\#(members)}"#))
            #expect(events.map(\.phase) == [.accepted, .failed], "\(members)")
            #expect(events.last?.members["error"]?.stringValue?.contains(message) == true, "\(members): \(String(describing: events.last?.members))")
        }
        await harness.close()
    }

    /// A scan split in any number of parts, merged, gives the same records as one pass (dyadic data: exactly).
    @Test func splitScansMergeToOnePass() async throws {
        let harness = await AnalysisHarness(schema: schema)
        let data = fixes(6_000, seed: 4)
        await harness.ingest(data.map(\.observation))
        let groups = Set(data.map { "\($0.agency ?? -1)|\($0.type ?? "∅")" }).count
        let request = try StatisticsRequest(statisticSpecs: ["count:speed", "sum:speed", "avg:speed", "min:speed", "max:t", "count:*"],
                                            groupBy: ["agency", "vehicletype"])
        var outputs: [[JSONObject]] = []
        for parts in [1, 2, 3, 7] {
            let events = try await harness.run(StoreStatisticsJob(request: request, rows: .observations, parts: parts))
            #expect(events.last?.phase == .summary && events.last?.members["rows"] == .int(6_000))
            outputs.append(results(events).map(\.members))
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] } && outputs[0].count == groups)
        await harness.close()
    }

    /// An empty store: no group-by gives one record (count 0, average null); with group-by, no record.
    @Test func emptyStore() async throws {
        let harness = await AnalysisHarness(schema: schema)
        let single = AnalysisHarness.analyses(await harness.command(#"{"id":1,"command":"statistics","of":"observations","statistics":["count:speed","avg:speed"]}"#))
        #expect(results(single).map { $0.members["statistics"] } == [.object(JSONObject([("COUNT_speed", .int(0)), ("AVG_speed", .null)]))])
        #expect(results(single).first?.members["group"] == .object(JSONObject()))
        let grouped = AnalysisHarness.analyses(await harness.command(#"{"id":2,"command":"statistics","statistics":["count:speed"],"groupBy":"agency"}"#))
        #expect(grouped.map(\.phase) == [.accepted, .summary])
        #expect(grouped.last?.members["of"] == .string("entities") && grouped.last?.members["records"] == .int(0))
        await harness.close()
    }
}
