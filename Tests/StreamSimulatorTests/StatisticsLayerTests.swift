import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamLocking
import EntityStreamStatistics
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

/// One synthetic row: a vehicle, its kind and agency (sometimes null), a dyadic speed (sometimes null), a date.
private struct Sample {
    var name: String
    var kind: String?
    var agency: Int64?
    var speed: Double?
    var t: Int64

    var attributes: [AttributeValue] {
        [.string(name), kind.map(AttributeValue.string) ?? .null, agency.map(AttributeValue.int) ?? .null,
         speed.map(AttributeValue.double) ?? .null, .date(milliseconds: t)]
    }
}

private let sampleSchema = Schema(fields: [Field(name: "name", type: .string), Field(name: "kind", type: .string), Field(name: "agency", type: .integer),
                                           Field(name: "speed", type: .double), Field(name: "t", type: .date)],
                                  trackIDField: "name")

/// `count` samples, one per vehicle (so the live store holds them in file order), several groups with nulls.
private func samples(_ count: Int, seed: UInt64) -> [Sample] {
    var random = SplitMix64(seed: seed)
    let kinds = ["plow", "grader", "Salt, wet", "\"quoted\"", "ünï"]
    return (0..<count).map { index in
        Sample(name: "V\(index)", kind: random.chance(0.08) ? nil : kinds[random.next(below: kinds.count)],
               agency: random.chance(0.05) ? nil : Int64(random.next(below: 3)),
               speed: random.chance(0.1) ? nil : Double(random.next(below: 800)) / 16 - 10,
               t: 1_795_420_800_000 + Int64(random.next(below: 86_400)) * 1000)
    }
}

/// Writes `samples` as an Esri FeatureSet (a table with declared field types) and returns its path.
private func writeFeatureSet(_ samples: [Sample]) throws -> String {
    var writer = JSONWriter(capacity: 1 << 16)
    let fields: JSONValue = .array([.object(JSONObject([("name", .string("OBJECTID")), ("type", .string("esriFieldTypeOID"))]))]
        + sampleSchema.fields.map(\.esriJSON))
    let features: [JSONValue] = samples.enumerated().map { index, sample in
        var attributes = JSONObject([("OBJECTID", .int(Int64(index + 1)))])
        for (field, value) in zip(sampleSchema.fields, sample.attributes) {
            switch value {
            case .date(let milliseconds): attributes.append(key: field.name, value: .int(milliseconds))
            case .string(let text): attributes.append(key: field.name, value: .string(text))
            case .int(let number): attributes.append(key: field.name, value: .int(number))
            case .double(let number): attributes.append(key: field.name, value: .double(number))
            default: attributes.append(key: field.name, value: .null)
            }
        }
        return .object(JSONObject([("attributes", .object(attributes))]))
    }
    writer.append(.object(JSONObject([("objectIdFieldName", .string("OBJECTID")), ("fields", fields), ("features", .array(features))])))
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stats-\(UUID().uuidString).json").path
    try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
    return path
}

/// The `group`/`statistics` members of each result line.
private func records(_ events: [AnalysisEvent]) -> [JSONObject] {
    events.filter { $0.phase == .result }.map { $0.members }
}

/// True when two record lists are equal, except that `stddev`/`var` values may differ by 1e-12 relative.
private func agree(_ a: [JSONObject], _ b: [JSONObject], deviations: Set<String>) -> Bool {
    guard a.count == b.count else { return false }
    for (x, y) in zip(a, b) {
        guard x["group"] == y["group"], let sx = x["statistics"]?.objectValue, let sy = y["statistics"]?.objectValue, sx.keys == sy.keys else { return false }
        for key in sx.keys where sx[key] != sy[key] {
            guard deviations.contains(key), let u = sx[key]?.doubleValue, let v = sy[key]?.doubleValue,
                  abs(u - v) <= 1e-12 * max(abs(u), abs(v)) else { return false }
        }
    }
    return true
}

@Suite("Grouped statistics: live store, file and remote layer agree", .bounded)
struct StatisticsLayerTests {
    static let county = "county/cdc_county_diabetes_inactivity_obesity.csv"

    /// The same request over the live store, the file and the simulator serving the file gives identical records (synthetic data with nulls, null group keys, quoted strings, dates; the groups paged 4 at a time).
    @Test func livefileAndRemoteAreIdentical() async throws {
        let data = samples(400, seed: 11)
        let path = try writeFeatureSet(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "S", path: path)]) { $0.maxRecordCount = 4 }
        let harness = await AnalysisHarness(schema: sampleSchema)
        await harness.ingest(data.map { Observation(geometry: nil, attributes: $0.attributes, receivedAt: 0) })

        let specs = ["count:speed", "sum:speed", "avg:speed", "stddev:speed", "var:speed", "min:speed", "max:kind", "min:t", "max:t", "count:*:rows"]
        let request = try StatisticsRequest(statisticSpecs: specs, groupBy: ["kind", "agency"], orderBy: ["rows DESC"], having: "COUNT(*) >= 2")
        let file = try await harness.run(FileStatisticsJob(path: path, request: request))
        let remote = try await harness.run(LayerStatisticsJob(layerURL: server.layerURL("S"), request: request))
        let statistics = #"[{"type":"count","field":"speed"},"sum:speed","avg:speed","stddev:speed","var:speed","min:speed","max:kind","min:t","max:t","count:*:rows"]"#
        let entities = AnalysisHarness.analyses(await harness.command(
            #"{"id":1,"command":"statistics","of":"entities","statistics":\#(statistics),"groupBy":["kind","agency"],"orderBy":"rows DESC","having":"COUNT(*) >= 2"}"#))
        let observations = AnalysisHarness.analyses(await harness.command(
            #"{"id":2,"command":"statistics","of":"observations","statistics":\#(statistics),"groupBy":"kind,agency","orderBy":["rows DESC"],"having":"COUNT(*) >= 2"}"#))

        #expect(file.last?.phase == .summary && remote.last?.phase == .summary && entities.last?.phase == .summary && observations.last?.phase == .summary)
        let fileRecords = records(file)
        #expect(fileRecords.count >= 12)
        #expect(records(remote) == fileRecords)
        #expect(records(entities) == fileRecords)
        // Two runs merged (Chan's formula): the deviations may differ in the last bits, everything else is identical.
        #expect(agree(records(observations), fileRecords, deviations: ["STDDEV_speed", "VAR_speed"]))
        #expect(file.last?.members["rows"] == .int(400) && file.last?.members["fileRows"] == .int(400))
        let positive = try await harness.run(FileStatisticsJob(path: path, request: request, query: FeatureQuery(whereClause: "speed > 0")))
        #expect(positive.last?.members["rows"] == .int(Int64(data.filter { ($0.speed ?? 0) > 0 }.count)))
        #expect(remote.last?.members["pages"] == .int(Int64((fileRecords.count + 3) / 4)))
        #expect(remote.last?.members["paging"] == .string("resultOffset"))
        #expect(fileRecords.first?["statistics"]?["MIN_t"]?.intValue == data.filter { s in
            let top = fileRecords.first?["group"]
            return top?["kind"] == (s.kind.map(JSONValue.string) ?? .null) && top?["agency"] == (s.agency.map(JSONValue.int) ?? .null)
        }.map(\.t).min())
        await harness.close()
        await server.shutdown()
    }

    /// The server refuses what ArcGIS refuses, with 400 error JSON naming the parameter; the client reports it as an ArcGIS error.
    @Test func serverRulesAreErrors() async throws {
        let path = try writeFeatureSet(samples(30, seed: 3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "S", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("S"))
        var query = FeatureQuery()
        query.outStatistics = [EntityStreamFeatures.StatisticDefinition(type: .avg, field: "speed")]
        query.groupByFieldsForStatistics = ["kind"]
        let cases: [(FeatureQuery, String, String)] = [
            ({ var q = query; q.orderBy = [OrderByField(field: "agency")]; return q }(), "orderByFields", "neither a group-by field nor a statistic"),
            ({ var q = query; q.havingClause = "speed > 1"; return q }(), "having", "not inside an aggregate"),
            ({ var q = FeatureQuery(); q.havingClause = "COUNT(*) > 1"; return q }(), "having", "only with outStatistics"),
            ({ var q = query; q.outStatistics = [EntityStreamFeatures.StatisticDefinition(type: .stddev, field: "kind")]; return q }(), "outStatistics", "numeric"),
        ]
        for (bad, parameter, reason) in cases {
            var failure: FeatureLayerError?
            do { _ = try await allPages(client, bad) } catch let error as FeatureLayerError { failure = error }
            guard case .arcGIS(let error, _)? = failure else { Issue.record("no ArcGIS error for \(parameter): \(String(describing: failure))"); continue }
            #expect(error.code == 400)
            #expect(error.details.contains { $0.contains("'\(parameter)' parameter is invalid") && $0.contains(reason) }, "\(error.details)")
        }
        await server.shutdown()
    }

    /// A layer that cannot page returns its groups in one answer, and more groups than it may send is a clear failure; a layer without statistics is refused by name.
    /// A layer that does not advertise supportsHavingClause (an older server that ignores `having` and answers every
    /// group): the having clause is applied here, the groups are exactly those the test counts, and the run says so.
    @Test func havingAppliedWhereTheLayerCannot() async throws {
        let data = samples(300, seed: 11)
        let path = try writeFeatureSet(data)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try FeatureFile.load(path: path)
        let engine = FeatureQueryEngine(maxRecordCount: 1000, statistics: TableStatisticsEngine())
        var description = LayerDescription(table: table, maxRecordCount: 1000, supportsStatistics: true)
        description.advancedQueryCapabilities = nil
        let descriptionBytes = description.json()
        let sawHaving = LockedState(false)
        var configuration = ServerConfiguration()
        configuration.httpResponder = { request in
            guard request.path.hasSuffix("/query") else { return HTTPServerResponse(body: descriptionBytes) }
            let parameters = request.query + request.formFields.map { (name: $0.0, value: $0.1) }
            if parameters.contains(where: { $0.name == "having" || $0.name == "havingClause" }) { sawHaving.withLock { $0 = true } }
            // An older server: having is not a parameter it knows.
            guard var query = try? FeatureQuery(parameters: parameters.filter { $0.name != "having" && $0.name != "havingClause" }),
                  let result = try? engine.run({ query.havingClause = nil; return query }(), on: table) else {
                return HTTPServerResponse(status: 400, body: Array("{\"error\":{\"code\":400,\"message\":\"bad\"}}".utf8))
            }
            return HTTPServerResponse(body: FeatureSetWriter.write(result, format: .json))
        }
        let server = try await TransportServer.start(configuration)
        let harness = await AnalysisHarness(schema: sampleSchema)
        let request = try StatisticsRequest(statisticSpecs: ["avg:speed:mean"], groupBy: ["kind"], having: "COUNT(*) >= 55 AND MAX(agency) = 2")
        let events = try await harness.run(LayerStatisticsJob(layerURL: "\(server.httpBase)/arcgis/rest/services/Old/FeatureServer/0", request: request))
        // Oracle: the groups counted here.
        var groups: [String: (count: Int, maxAgency: Int64?)] = [:]
        for sample in data {
            let key = sample.kind ?? "<null>"
            var entry = groups[key] ?? (0, nil)
            entry.count += 1
            if let agency = sample.agency { entry.maxAgency = max(entry.maxAgency ?? agency, agency) }
            groups[key] = entry
        }
        let kept = groups.filter { $0.value.count >= 55 && $0.value.maxAgency == 2 }.keys.sorted()
        let got = records(events).compactMap { $0["group"]?["kind"] }.map { $0.stringValue ?? "<null>" }.sorted()
        #expect(got == kept)
        #expect(!kept.isEmpty && kept.count < groups.count)
        #expect(!sawHaving.withLock { $0 })
        #expect(events.contains { $0.phase == .progress && $0.members["note"]?.stringValue?.contains("supportsHavingClause") == true })
        #expect(events.last?.members["havingAppliedLocally"] == .bool(true))
        #expect(events.last?.members["groupsDroppedByHaving"] == .int(Int64(groups.count - kept.count)))
        #expect(events.last?.members["records"] == .int(Int64(kept.count)))
        await harness.close()
        await server.shutdown()
    }

    @Test func layersThatCannot() async throws {
        let path = try writeFeatureSet(samples(200, seed: 5))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let harness = await AnalysisHarness(schema: sampleSchema)
        let request = try StatisticsRequest(statisticSpecs: ["count:*"], groupBy: ["kind"])
        let oldServer = try await startLayers([LayerSpecification(name: "S", path: path)]) { $0.layerPagination = false; $0.maxRecordCount = 3 }
        let tooMany = try await harness.run(LayerStatisticsJob(layerURL: oldServer.layerURL("S"), request: request))
        #expect(tooMany.last?.phase == .failed)
        #expect(tooMany.last?.members["error"]?.stringValue?.contains("cannot page") == true, "\(String(describing: tooMany.last?.members))")
        let fewer = try await harness.run(LayerStatisticsJob(layerURL: oldServer.layerURL("S"), request: request,
                                                             query: FeatureQuery(whereClause: "kind IN ('plow', 'grader')")))
        #expect(records(fewer).count == 2 && fewer.last?.members["paging"] == .string("none"))
        await oldServer.shutdown()
        let plain = try await startLayers([LayerSpecification(name: "S", path: path)]) { $0.statisticsEngine = nil }
        let refused = try await harness.run(LayerStatisticsJob(layerURL: plain.layerURL("S"), request: request))
        #expect(refused.last?.members["error"]?.stringValue?.contains("does not support statistics") == true)
        let unknown = try await harness.run(LayerStatisticsJob(layerURL: plain.layerURL("S"), request: try StatisticsRequest(statisticSpecs: ["avg:kind"])))
        #expect(unknown.last?.phase == .failed)
        await plain.shutdown()
        await harness.close()
    }

    /// The sample's query on the real county table — average, count and standard deviation of diabetes by state, ordered by state — equals a
    /// computation written here, from the file, through the simulator (paged 7 groups at a time) and on the live store; the paths agree.
    @Test(.enabled(if: SharedData.has(county), Comment(rawValue: SharedData.absentComment)))
    func countyDiabetesByState() async throws {
        let path = SharedData.path(Self.county)
        let lines = try SharedData.text(Self.county).split(whereSeparator: \.isNewline)
        try #require(lines.first == "State,County,FIPSCodes,Diabetes,LeisureInactivity,Obesity")
        var byState: [String: [Double]] = [:]
        var observations: [Observation] = []
        for (index, line) in lines.dropFirst().enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            try #require(fields.count == 6)
            let diabetes = Double(fields[3])
            if let diabetes { byState[fields[0], default: []].append(diabetes) }
            observations.append(Observation(geometry: nil, attributes: [.string("row\(index)"), .string(fields[0]), .string(fields[1]),
                                                                         diabetes.map(AttributeValue.double) ?? .null],
                                            receivedAt: 0))
        }
        let server = try await startLayers([LayerSpecification(name: "Counties", path: path)]) { $0.maxRecordCount = 7 }
        let harness = await AnalysisHarness(schema: Schema(fields: [Field(name: "key", type: .string), Field(name: "State", type: .string),
                                                                    Field(name: "County", type: .string), Field(name: "Diabetes", type: .double)],
                                                           trackIDField: "key"))
        await harness.ingest(observations)
        let request = try StatisticsRequest(statisticSpecs: ["avg:Diabetes", "count:Diabetes", "stddev:Diabetes"], groupBy: ["State"],
                                            orderBy: ["State ASC"])
        let file = records(try await harness.run(FileStatisticsJob(path: path, request: request)))
        let remote = records(try await harness.run(LayerStatisticsJob(layerURL: server.layerURL("Counties"), request: request)))
        let live = records(AnalysisHarness.analyses(await harness.command(
            #"{"id":"c","command":"statistics","of":"entities","statistics":["avg:Diabetes","count:Diabetes","stddev:Diabetes"],"groupBy":"State","orderBy":"State ASC"}"#)))
        let liveObservations = records(AnalysisHarness.analyses(await harness.command(
            #"{"id":"o","command":"statistics","of":"observations","statistics":["avg:Diabetes","count:Diabetes","stddev:Diabetes"],"groupBy":"State"}"#)))

        let states = byState.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(file.count == 49 && file.map { $0["group"]?["State"]?.stringValue } == states)
        for record in file {
            let state = try #require(record["group"]?["State"]?.stringValue)
            let values = try #require(byState[state])
            let mean = values.reduce(0, +) / Double(values.count)
            let sample = values.count > 1 ? (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot() : nil
            let statistics = try #require(record["statistics"]?.objectValue)
            #expect(statistics.keys == ["AVG_Diabetes", "COUNT_Diabetes", "STDDEV_Diabetes"])
            #expect(statistics["COUNT_Diabetes"] == .int(Int64(values.count)), "\(state)")
            #expect(abs((statistics["AVG_Diabetes"]?.doubleValue ?? .nan) - mean) <= 1e-12 * mean, "\(state)")
            if let sample {
                #expect(abs((statistics["STDDEV_Diabetes"]?.doubleValue ?? .nan) - sample) <= 1e-10 * sample, "\(state)")
            } else {
                #expect(statistics["STDDEV_Diabetes"] == .null, "\(state): one county, no sample deviation")
            }
        }
        #expect(file.first { $0["group"]?["State"] == .string("California") }?["statistics"]?["COUNT_Diabetes"] == .int(58))
        #expect(remote == file)
        #expect(live == file)
        #expect(agree(liveObservations, file, deviations: ["STDDEV_Diabetes"]))
        await harness.close()
        await server.shutdown()
    }
}
