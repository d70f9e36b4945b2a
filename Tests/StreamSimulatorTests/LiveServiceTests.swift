import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamHotSpots
import EntityStreamStatistics
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamAnalyses

/// The live stream's schema: a track id, numbers, a time field.
private let liveSchema = Schema(fields: [Field(name: "name", type: .string), Field(name: "speed", type: .double),
                                         Field(name: "agency", type: .integer), Field(name: "seq", type: .integer),
                                         Field(name: "t", type: .date)], trackIDField: "name", startTimeField: "t")
private let base: Int64 = 1_767_225_600_000

/// Observation `i`: 7 tracks, speeds 0…39, agencies 3 and 4, points on a 100 × 50 grid, one second apart.
private func observation(_ i: Int) -> Observation {
    Observation(geometry: Point(x: -112 + Double(i % 100) * 0.003, y: 40.5 + Double(i % 50) * 0.004, wkid: 4326),
                attributes: [.string("V\(i % 7)"), .double(Double(i % 40)), .int(Int64(3 + i % 2)), .int(Int64(i)),
                             .date(milliseconds: base + Int64(i) * 1000)],
                receivedAt: base + Int64(i) * 1000)
}

private func startLive(store: LiveStore? = nil, configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> (SimulatorServer, LiveStream) {
    let stream = LiveStream(name: "Live", info: LiveServiceInfo(description: "test stream", schema: liveSchema, spatialReference: 4326))
    var configuration = SimulatorConfiguration()
    configuration.liveServices = [LiveServiceSpecification(stream: stream, store: store)]
    configuration.slowClientPolicy = .dropOldest
    configure(&configuration)
    return (try await SimulatorServer.start(configuration), stream)
}

/// A live server whose subscribers' queues hold 64 KiB under `policy`, with a first subscriber that reads nothing
/// (its socket's receive buffer 2 KiB, the server's send buffer 4 KiB: the queue fills after kilobytes of kernel
/// buffers, not the megabytes the kernel's autotuning allows), and the subscribe path for more.
private func startWithSlowSubscriber(_ policy: SlowClientPolicy) async throws -> (SimulatorServer, LiveStream, RawWebSocketClient, path: String) {
    let (server, stream) = try await startLive {
        $0.clientQueueBytes = 65_536
        $0.clientSendBufferBytes = 4096
        $0.slowClientPolicy = policy
    }
    let path = "/arcgis/ws/services/Live/StreamServer/subscribe"
    let slow = try await RawWebSocketClient.connect(port: server.port, path: path, receiveBufferBytes: 2048)
    await stream.waitForClients(1)
    return (server, stream, slow, path)
}

/// Publishes observations `range` in batches of `batch`.
private func publish(_ range: Range<Int>, to publisher: inout LiveStreamPublisher, batch: Int = 100) {
    var start = range.lowerBound
    while start < range.upperBound {
        let end = min(start + batch, range.upperBound)
        publisher.publish((start..<end).map(observation))
        start = end
    }
}

/// The features (messages with `attributes`) of the next `count` messages a connection receives; filter replies are skipped.
private func features(_ connection: WebSocketConnection, count: Int) async throws -> [JSONValue] {
    var result: [JSONValue] = []
    guard count > 0 else { return result }
    for try await batch in connection.inbound {
        for index in batch.indices {
            let value = try JSONParser.parse(Array(batch[index]))
            if value["attributes"] != nil { result.append(value) }
        }
        if result.count >= count { break }
    }
    return result
}

private func seq(_ feature: JSONValue) -> Int { Int(feature["attributes"]?["seq"]?.intValue ?? -1) }

@Suite("Live services: the relay's fan-out, store layers and hot spots on the simulator's server", .bounded(.io))
struct LiveServiceTests {
    /// Subscribers with different filters (none, where, envelope, outFields, outSR) each receive exactly the
    /// observations their filter admits, in order, shaped as asked; one that joins later gets only what follows.
    @Test func eachSubscriberGetsWhatItsFilterAdmits() async throws {
        let (server, stream) = try await startLive()
        let socket = "ws://127.0.0.1:\(server.port)/arcgis/ws/services/Live/StreamServer/subscribe"
        let queries = ["", "where=\(PercentEncoding.encode("speed > 20 AND agency = 4"))",
                       "geometry=\(PercentEncoding.encode("-111.95,40.52,-111.85,40.62"))", "outFields=speed", "outSR=3857"]
        var connections: [WebSocketConnection] = []
        for query in queries { connections.append(try await WebSocketClient.connect(to: "\(socket)?\(query)")) }
        await stream.waitForClients(queries.count)
        var publisher = stream.makePublisher()
        publish(0..<2000, to: &publisher)

        // The oracles, written here: the predicates by hand, Web Mercator by its formula.
        let all = (0..<2000).map(observation)
        func attribute(_ o: Observation, _ index: Int) -> Double { o.attribute(index).doubleValue ?? .nan }
        let expected: [[Int]] = [
            all.map { Int(attribute($0, 3)) },
            all.filter { attribute($0, 1) > 20 && attribute($0, 2) == 4 }.map { Int(attribute($0, 3)) },
            all.filter { let p = $0.geometry!; return p.x >= -111.95 && p.x <= -111.85 && p.y >= 40.52 && p.y <= 40.62 }.map { Int(attribute($0, 3)) },
        ]
        for (index, connection) in connections.prefix(3).enumerated() {
            let got = try await features(connection, count: expected[index].count)
            #expect(got.map(seq) == expected[index], "filter \(queries[index])")
        }
        let thin = try await features(connections[3], count: 2000)
        #expect(thin.allSatisfy { $0["attributes"]?.objectValue?.keys.sorted() == ["name", "speed"] })
        #expect(thin.count == 2000)
        let mercator = try await features(connections[4], count: 2000)
        #expect(mercator.count == 2000)
        for (feature, source) in zip(mercator, all) {
            let p = source.geometry!
            let x = 6_378_137 * p.x * .pi / 180, y = 6_378_137 * log(tan(.pi / 4 + p.y * .pi / 360))
            #expect(abs((feature["geometry"]?["x"]?.doubleValue ?? 0) - x) < 1e-3 && abs((feature["geometry"]?["y"]?.doubleValue ?? 0) - y) < 1e-3)
            #expect(feature["geometry"]?["spatialReference"]?["wkid"]?.intValue == 3857)
        }

        // A late subscriber: it joins at sequence 2000 and gets 2000… only.
        let late = try await WebSocketClient.connect(to: socket)
        await stream.waitForClients(queries.count + 1)
        publish(2000..<2300, to: &publisher)
        #expect(try await features(late, count: 300).map(seq) == Array(2000..<2300))
        #expect(stream.clients.last?.joinedAt == 2000)
        // Everyone was offered what its filter admitted and handed it to its socket, nothing dropped.
        #expect(stream.clients.allSatisfy { $0.dropped == 0 })
        for connection in connections + [late] { await connection.close() }
        await server.shutdown()
    }

    /// A filter message regroups the subscriber: after the reply, only what the new filter admits arrives;
    /// a filter naming an unknown field is refused with an error and the old filter stays.
    @Test func filterMessagesChangeWhatArrives() async throws {
        let (server, stream) = try await startLive()
        let client = try await RawWebSocketClient.connect(port: server.port, path: "/arcgis/ws/services/Live/StreamServer/subscribe")
        await stream.waitForClients(1)
        var publisher = stream.makePublisher()
        #expect(await client.send(#"{"filter":{"where":"agency = 3"}}"#))
        let reply = await client.read(messages: 1)
        let answer = try JSONParser.parse(try #require(reply.messages.first))
        #expect(answer["filter"]?["where"]?.stringValue == "agency = 3" && answer["error"] == nil)
        publish(0..<200, to: &publisher)
        let after = await client.read(messages: 100)
        #expect(try after.messages.map { try JSONParser.parse($0) }.map(seq) == Array(stride(from: 0, to: 200, by: 2)))
        #expect(await client.send(#"{"filter":{"where":"nosuch > 1"}}"#))
        let refused = try JSONParser.parse(try #require(await client.read(messages: 1).messages.first))
        #expect(refused["error"]?[0]?.stringValue?.contains("nosuch") == true)
        publish(200..<210, to: &publisher)
        #expect(try await client.read(messages: 5).messages.map { try JSONParser.parse($0) }.map(seq) == [200, 202, 204, 206, 208])
        await server.shutdown()
    }

    /// Drop-oldest: a subscriber that never reads loses its oldest queued messages (counted) while a fast one
    /// receives everything in order; when it reads at last, it gets an ordered subsequence, and what it got plus
    /// what was dropped is what its filter admitted.
    @Test func slowSubscriberDropsOldestWhileFastGetsAll() async throws {
        let (server, stream, slow, path) = try await startWithSlowSubscriber(.dropOldest)
        let fast = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)\(path)")
        await stream.waitForClients(2)
        var publisher = stream.makePublisher()
        let total = 6_000   // about 0.9 MB: many times the 64 KiB queue and the few KiB of socket buffers
        // The fast subscriber reads each batch before the next is published (it never falls behind);
        // the slow one reads nothing.
        var fastSeen: [Int] = []
        for start in stride(from: 0, to: total, by: 200) {
            publisher.publish((start..<(start + 200)).map(observation))
            fastSeen += try await features(fast, count: 200).map(seq)
        }
        #expect(fastSeen == Array(0..<total))
        let stats = try #require(stream.clients.first { $0.id == 1 })
        #expect(stats.offered == Int64(total))
        #expect(stats.dropped > 0, "the slow subscriber's queue never overflowed: \(stats)")
        #expect(stream.clients.first { $0.id == 2 }?.dropped == 0)
        let expected = total - stats.dropped
        let reading = await slow.read(messages: expected)
        let got = try reading.messages.map { try JSONParser.parse($0) }.map(seq)
        #expect(got.count == expected)
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 } && got.allSatisfy { (0..<total).contains($0) })
        #expect(got.last == total - 1, "the newest messages are kept, the oldest dropped")
        await fast.close()
        await server.shutdown()
    }

    /// Wait (the library's default policy, never `serve`'s): the publisher still never waits; a batch that
    /// finds the slow subscriber's queue full is not queued, and is counted as dropped, so what it received
    /// plus what was dropped is what it was offered.
    @Test func slowSubscriberUnderWaitPolicyCountsWhatItMisses() async throws {
        let (server, stream, slow, _) = try await startWithSlowSubscriber(.waitForSpace)
        var publisher = stream.makePublisher()
        let total = 6_000
        publish(0..<total, to: &publisher, batch: 200)
        let stats = try #require(stream.clients.first)
        #expect(stats.offered == Int64(total))
        #expect(stats.dropped > 0, "the slow subscriber's queue never refused a batch: \(stats)")
        let expected = total - stats.dropped
        let reading = await slow.read(messages: expected)
        let got = try reading.messages.map { try JSONParser.parse($0) }.map(seq)
        #expect(got.count == expected, "received \(got.count), offered \(total), counted as dropped \(stats.dropped)")
        #expect(zip(got, got.dropFirst()).allSatisfy { $0 < $1 })
        await server.shutdown()
    }

    /// Close: a subscriber that falls behind is closed with 1008 (ArcGIS clients reconnect and prime again);
    /// the fast one receives everything.
    @Test func slowSubscriberClosedUnderClosePolicy() async throws {
        let (server, stream, slow, path) = try await startWithSlowSubscriber(.disconnect)
        let fast = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)\(path)")
        await stream.waitForClients(2)
        var publisher = stream.makePublisher()
        var fastSeen: [Int] = []
        for start in stride(from: 0, to: 6_000, by: 200) {
            publisher.publish((start..<(start + 200)).map(observation))
            fastSeen += try await features(fast, count: 200).map(seq)
        }
        #expect(fastSeen == Array(0..<6_000))
        let reading = await slow.read(messages: Int.max)
        #expect(reading.close?.code == 1008, "\(String(describing: reading.close))")
        let got = try reading.messages.map { try JSONParser.parse($0) }.map(seq)
        #expect(got == Array(0..<got.count), "before the close, an unbroken prefix")
        await fast.close()
        await server.shutdown()
    }

    /// Before its source has described the stream, the service answers 503 (description and upgrade);
    /// beyond --max-clients an upgrade gets 503 too.
    @Test func notYetDescribedAndTooManyClients() async throws {
        let stream = LiveStream(name: "Live", info: LiveServiceInfo(description: "", schema: Schema(fields: []), spatialReference: 4326))
        var configuration = SimulatorConfiguration()
        configuration.liveServices = [LiveServiceSpecification(stream: stream, store: nil)]
        configuration.maximumClients = 1
        let server = try await SimulatorServer.start(configuration)
        let description = try await HTTPClient().get(server.serviceURL("Live") + "?f=json")
        #expect(description.status == 503)
        do {
            _ = try await RawWebSocketClient.connect(port: server.port, path: "/arcgis/ws/services/Live/StreamServer/subscribe")
            Issue.record("the upgrade was accepted before the stream was described")
        } catch {
            #expect("\(error)".contains("503"))
        }
        stream.update(LiveServiceInfo(description: "now", schema: liveSchema, spatialReference: 4326))
        #expect(try await HTTPClient().get(server.serviceURL("Live") + "?f=json").status == 200)
        let first = try await RawWebSocketClient.connect(port: server.port, path: "/arcgis/ws/services/Live/StreamServer/subscribe")
        await stream.waitForClients(1)
        do {
            _ = try await RawWebSocketClient.connect(port: server.port, path: "/arcgis/ws/services/Live/StreamServer/subscribe")
            Issue.record("a second subscriber was accepted beyond the limit of 1")
        } catch {
            #expect("\(error)".contains("503"))
        }
        _ = first
        await server.shutdown()
    }
}

/// A store holding observations 0..<count (no purge), as a live store's snapshot.
private func store(_ count: Int) -> (LiveStore, StoreContents) {
    var state = EntityStoreState(schema: liveSchema, options: PurgeOptions(maximumObservations: 0))
    var events: [StoreEvent] = []
    for i in 0..<count {
        _ = state.ingest(observation(i), now: base + Int64(i) * 1000, into: &events)
        events.removeAll()
    }
    let contents = state.contents
    return (LiveStore { (contents, base + Int64(count) * 1000) }, contents)
}

@Suite("Live services: the store's layers answer as the store does", .bounded(.io))
struct LiveStoreLayerTests {
    /// NAME_Tracks answers a time extent (where, outFields, order, paging) with the observations the store's
    /// own query returns and the test computes; the object ids are the store's observation ids.
    @Test func tracksTimeExtentEqualsTheStoresQuery() async throws {
        let (live, contents) = store(5000)
        let (server, _) = try await startLive(store: live) { $0.maxRecordCount = 300 }
        let layer = server.layerURL("Live_Tracks", kind: .featureServer)
        let start = base + 1200 * 1000, end = base + 3400 * 1000
        var features: [JSONValue] = []
        var offset = 0
        while true {
            let query = "where=\(PercentEncoding.encode("agency = 4"))&time=\(start),\(end)&outFields=seq,name&orderByFields=\(PercentEncoding.encode("seq DESC"))&resultOffset=\(offset)&f=json"
            let page = try JSONParser.parse(try await HTTPClient().get("\(layer)/query?\(query)").body)
            let got = page["features"]?.arrayValue ?? []
            features += got
            offset += got.count
            guard page["exceededTransferLimit"]?.boolValue == true, !got.isEmpty else { break }
        }
        let brute = (0..<5000).filter { i in let t = base + Int64(i) * 1000; return t >= start && t <= end && i % 2 == 1 }.reversed()
        #expect(features.map { Int($0["attributes"]?["seq"]?.intValue ?? -1) } == Array(brute))
        var request = QueryObservationsRequest()
        request.timeExtent = try TimeExtent(start: start, end: end)
        request.whereClause = "agency = 4"
        let rows = try request.compile(for: contents.schema).run(on: contents, shouldStop: { false }).rows
        let storeIDs = Set(rows.map(\.id))
        let layerIDs = Set(features.compactMap { $0["attributes"]?["OBJECTID"]?.intValue })
        #expect(layerIDs == storeIDs && layerIDs.count == brute.count)
        let count = try JSONParser.parse(try await HTTPClient().get("\(layer)/query?where=1%3D1&time=\(start),\(end)&returnCountOnly=true&f=json").body)
        #expect(count["count"]?.intValue == Int64(end - start) / 1000 + 1)
        await server.shutdown()
    }

    /// Grouped statistics with having and order on NAME_Tracks equal the store's statistics engine over the
    /// same snapshot and the test's own arithmetic.
    @Test func tracksGroupedStatisticsEqualTheStores() async throws {
        let (live, contents) = store(5000)
        let (server, _) = try await startLive(store: live)
        let layer = server.layerURL("Live_Tracks", kind: .featureServer)
        let statistics = #"[{"statisticType":"avg","onStatisticField":"speed","outStatisticFieldName":"avg_speed"},{"statisticType":"count","onStatisticField":"seq","outStatisticFieldName":"n"},{"statisticType":"max","onStatisticField":"speed","outStatisticFieldName":"top"}]"#
        let query = "where=\(PercentEncoding.encode("seq < 4000"))&outStatistics=\(PercentEncoding.encode(statistics))&groupByFieldsForStatistics=name&having=\(PercentEncoding.encode("COUNT(seq) > 571"))&orderByFields=\(PercentEncoding.encode("name ASC"))&f=json"
        let answer = try JSONParser.parse(try await HTTPClient().get("\(layer)/query?\(query)").body)
        let records = (answer["features"]?.arrayValue ?? []).compactMap { $0["attributes"] }
        // The test's own arithmetic.
        var groups: [String: [Double]] = [:]
        for i in 0..<4000 { groups["V\(i % 7)", default: []].append(Double(i % 40)) }
        let kept = groups.filter { $0.value.count > 571 }.sorted { $0.key < $1.key }
        #expect(records.map { $0["name"]?.stringValue ?? "" } == kept.map(\.key))
        for (record, (_, speeds)) in zip(records, kept) {
            #expect(abs((record["avg_speed"]?.doubleValue ?? .nan) - speeds.reduce(0, +) / Double(speeds.count)) < 1e-9)
            #expect(record["n"]?.intValue == Int64(speeds.count) && record["top"]?.doubleValue == speeds.max())
        }
        // The store's engine over the same contents.
        let request = try StatisticsRequest(outStatistics: statistics, groupByFieldsForStatistics: "name", orderByFields: "name ASC",
                                            havingClause: "COUNT(seq) > 571")
        let plan = try StatisticsPlan(request, schema: contents.schema)
        var selection = QueryObservationsRequest()
        selection.whereClause = "seq < 4000"
        let result = try await StoreStatisticsJob.aggregate(contents, scan: selection.compile(for: contents.schema).scan, plan: plan, parts: 1).finish()
        #expect(result.records.map { $0.groupValue("name") } == records.map { AttributeValue.string($0["name"]?.stringValue ?? "") })
        for (record, stored) in zip(records, result.records) {
            #expect(stored.statistic("avg_speed")?.doubleValue == record["avg_speed"]?.doubleValue)
            #expect(stored.statistic("n") == .int(record["n"]?.intValue ?? -1))
        }
        await server.shutdown()
    }

    /// NAME_Latest holds each entity's latest observation (the highest seq of its track); the description is
    /// time-aware on the stream's time field with the store's extent; NAME/StreamServer names it in keepLatestArchive.
    @Test func latestLayerAndDescriptions() async throws {
        let (live, _) = store(1000)
        let (server, _) = try await startLive(store: live)
        let latest = server.layerURL("Live_Latest", kind: .featureServer)
        let answer = try JSONParser.parse(try await HTTPClient().get("\(latest)/query?where=1%3D1&outFields=name,seq&orderByFields=name&f=json").body)
        let rows = (answer["features"]?.arrayValue ?? []).map { ($0["attributes"]?["name"]?.stringValue ?? "", Int($0["attributes"]?["seq"]?.intValue ?? -1)) }
        let brute = (0..<7).map { track in ("V\(track)", (0..<1000).last { $0 % 7 == track } ?? -1) }
        #expect(rows.map(\.0) == brute.map(\.0) && rows.map(\.1) == brute.map(\.1))
        let tracks = try LayerDescription(json: try await HTTPClient().get(server.layerURL("Live_Tracks", kind: .featureServer) + "?f=json").body)
        #expect(tracks.timeInfo?.startTimeField == "t" && tracks.timeInfo?.trackIDField == "name")
        #expect(tracks.timeInfo?.timeExtent == (try TimeExtent(start: base, end: base + 999_000)))
        #expect(tracks.extent?.xmin == -112.0 && tracks.extent?.xmax == -112 + 99 * 0.003)
        let description = try ServiceDescription(json: try await HTTPClient().get(server.serviceURL("Live") + "?f=json").body)
        #expect(try description.archive()?.featuresURL == "http://127.0.0.1:\(server.port)/arcgis/rest/services/Live_Latest/FeatureServer/0")
        #expect(description.startTimeField == "t" && description.trackIDField == "name")
        await server.shutdown()
    }

    /// The hot-spot task runs over the live store: a job succeeds, its cells cover the store's points, and
    /// /status names it as the latest hot-spot job.
    @Test func hotSpotJobOverTheStore() async throws {
        let (live, _) = store(3000)
        let (server, _) = try await startLive(store: live)
        let client = try GeoprocessingClient(taskURL: server.hotSpotTaskURL("Live"))
        let submitted = try await client.submitJob([("Query", "seq >= 0"), ("f", "json")])
        var info = try await client.job(submitted.jobID)
        for _ in 0..<100_000 where !info.status.isTerminal { info = try await client.job(submitted.jobID) }
        #expect(info.status == .succeeded, "\(info.messages.map(\.description))")
        let output = try await client.result(submitted.jobID, parameter: "Output_Features")
        #expect((output.value["features"]?.arrayValue?.count ?? 0) > 0)
        let status = try JSONParser.parse(try await HTTPClient().get(server.httpBase + "/status").body)
        #expect(status["services"]?[0]?["latestHotSpotJob"]?.stringValue == submitted.jobID)
        #expect(status["services"]?[0]?["store"]?["observations"]?.intValue == 3000)
        await server.shutdown()
    }

    /// The page is self-contained: HTML with a CSP allowing nothing but this server, no external URL.
    @Test func mapPageIsSelfContained() async throws {
        let (live, _) = store(10)
        let (server, _) = try await startLive(store: live) { $0.servesMapPage = true }
        // Read from the wire: the transport's client keeps only the headers it knows.
        let answer = await RawTCPExchange.exchange(port: server.port, send: Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let head = answer.text.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
        #expect(head.hasPrefix("http/1.1 200") && head.contains("content-type: text/html"))
        #expect(head.contains("content-security-policy: default-src 'none'"), "\(head)")
        let text = String(decoding: try await HTTPClient().get(server.httpBase + "/").body, as: UTF8.self)
        #expect(text.contains("/arcgis/ws/services/\" + NAME") && text.contains("Live_Tracks") && text.contains("Live_Latest"))
        #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"))
        await server.shutdown()
    }
}
