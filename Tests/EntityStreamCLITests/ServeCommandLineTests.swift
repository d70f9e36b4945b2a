import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamTransport
import EntityStreamModel

/// The fleet's service envelope (Sandy, Utah).
private let sandy = (xmin: -112.110052, ymin: 40.535247, xmax: -111.814782, ymax: 40.718083)

/// `stream-simulator --fleet …` on a free port.
private func startFleet(_ arguments: [String]) async throws -> (CapturedProcess, Int) {
    let simulator = try CapturedProcess(CommandLineTool.path("stream-simulator"), ["--port", "0"] + arguments)
    let port = try #require(await simulator.port(), "the simulator did not start: \(simulator.text(.error))")
    return (simulator, port)
}

/// `entitystream serve SOURCE …` on a free port (with `environment`, or the test's).
private func startServe(_ source: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (CapturedProcess, Int) {
    let relay = try CapturedProcess(CommandLineTool.path("entitystream"), ["serve", source, "--port", "0"] + arguments, environment: environment)
    let port = try #require(await relay.port(), "serve did not start: \(relay.text(.error))")
    // Until its source has described the stream, the service answers 503 (as a starting ArcGIS service).
    _ = try #require(await relay.line(.error) { $0.contains("described its stream") }, "\(relay.text(.error))")
    return (relay, port)
}

private func fleetURL(_ port: Int) -> String { "http://127.0.0.1:\(port)/arcgis/rest/services/SandyVehicles/StreamServer" }

/// One fleet observation as a client received it.
private struct Report: Hashable {
    var name: String
    var time: Int64
    var speed: Double
    var agency: Int64
    var type: String
    var x: Double
    var y: Double

    init(_ feature: JSONValue) {
        let a = feature["attributes"]
        name = a?["vehiclename"]?.stringValue ?? ""
        time = a?["lastupdate"]?.intValue ?? -1
        speed = a?["speed"]?.doubleValue ?? .nan
        agency = a?["agency"]?.intValue ?? -1
        type = a?["vehicletype"]?.stringValue ?? ""
        x = feature["geometry"]?["x"]?.doubleValue ?? .nan
        y = feature["geometry"]?["y"]?.doubleValue ?? .nan
    }

    var number: Int { Int(name.split(separator: " ").last ?? "") ?? -1 }
}

/// The next messages of `connection` with attributes, until `count` (filter replies are returned apart).
private func read(_ connection: WebSocketConnection, count: Int) async throws -> (features: [JSONValue], replies: [JSONValue]) {
    var features: [JSONValue] = []
    var replies: [JSONValue] = []
    for try await batch in connection.inbound {
        for index in batch.indices {
            let value = try JSONParser.parse(Array(batch[index]))
            if value["attributes"] != nil { features.append(value) } else { replies.append(value) }
        }
        if features.count >= count { break }
    }
    return (features, replies)
}

/// The first filter reply of `connection`, and the features that came after it (those before are the old filter's).
private func readUntilReply(_ connection: WebSocketConnection) async throws -> (reply: JSONValue?, after: [JSONValue]) {
    var reply: JSONValue?
    var after: [JSONValue] = []
    for try await batch in connection.inbound {
        for index in batch.indices {
            let value = try JSONParser.parse(Array(batch[index]))
            if value["attributes"] == nil { reply = reply ?? value } else if reply != nil { after.append(value) }
        }
        if reply != nil { break }
    }
    return (reply, after)
}

/// True when `reports` are consecutive reports of an `n`-vehicle fleet: TRUCK k is followed by TRUCK k+1
/// (TRUCK n by TRUCK 1), and each vehicle's reports are one period apart (±1 ms for rounding). A lost,
/// repeated or reordered report breaks it.
private func isGapFree(_ reports: [Report], vehicles n: Int, periodMilliseconds period: Double) -> Bool {
    var last: [String: Int64] = [:]
    for (index, report) in reports.enumerated() {
        if index > 0, report.number != reports[index - 1].number % n + 1 { return false }
        if let previous = last[report.name], abs(Double(report.time - previous) - period) > 1 { return false }
        last[report.name] = report.time
    }
    return true
}

/// `GET path` on the relay with `token` as the ArcGIS clients send it.
private func get(_ port: Int, _ path: String, token: String? = nil) async throws -> HTTPResponse {
    var headers = HTTPHeaders()
    if let token { headers.add(name: "X-Esri-Authorization", value: "Bearer \(token)") }
    return try await HTTPClient().get("http://127.0.0.1:\(port)\(path)", headers: headers)
}

private func json(_ port: Int, _ path: String, token: String? = nil) async throws -> JSONValue {
    try JSONParser.parse(try await get(port, path, token: token).body)
}

/// Opens a subscriber as the ArcGIS JS StreamLayer does: reads the service description, primes from its
/// keepLatestArchive layer, then subscribes to its streamUrls with `query` (the filter) and the socket token.
private func subscribe(_ port: Int, query: String, token: String? = nil) async throws -> (WebSocketConnection, primed: [JSONValue]) {
    let description = try await json(port, "/arcgis/rest/services/SandyVehicles/StreamServer?f=json", token: token)
    let archive = try #require(description["keepLatestArchive"]?["featuresUrl"]?.stringValue)
    let archivePath = String(archive.dropFirst("http://127.0.0.1:\(port)".count))
    let primed = try await json(port, "\(archivePath)/query?where=1%3D1&outFields=*&f=json", token: token)["features"]?.arrayValue ?? []
    let entry = try #require(description["streamUrls"]?[0])
    let base = try #require(entry["urls"]?[0]?.stringValue)
    var parts = query.isEmpty ? [] : [query]
    if let socketToken = entry["token"]?.stringValue { parts.append("token=\(PercentEncoding.encode(socketToken))") }
    let connection = try await WebSocketClient.connect(to: "\(base)/subscribe" + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&")))
    return (connection, primed)
}

@Suite("entitystream serve: a relay in front of the simulator's fleet", .bounded(.io))
struct ServeCommandLineTests {
    /// Esri-protocol clients subscribe to the relay with different filters (none, where, envelope, outFields +
    /// outSR, a filter message); each receives exactly the observations its filter admits, in order — checked
    /// against an unfiltered client whose stream is the fleet's own unbroken timeline.
    @Test func subscribersGetExactlyWhatTheirFiltersAdmit() async throws {
        // 12 vehicles at 50 reports/s each: 600 messages/s, so the counts below arrive within seconds; a
        // 4 MiB queue per subscriber (7 s of the fleet) keeps a reader the busy test process delays from drops.
        let (simulator, simulatorPort) = try await startFleet(["--fleet", "12", "--rate", "50"])
        let (relay, port) = try await startServe(fleetURL(simulatorPort), ["--events", "status,error", "--client-queue", "4M"])
        let (all, primed) = try await subscribe(port, query: "")
        #expect(Set(primed.map { Report($0).name }).count == 12, "primed from NAME_Latest: every vehicle once")
        let first = try await read(all, count: 1).features   // registered: the relay sends only to registered subscribers
        let midX = (sandy.xmin + sandy.xmax) / 2
        let (fast, _) = try await subscribe(port, query: "where=\(PercentEncoding.encode("speed > 15 AND agency = 4"))")
        let (boxed, _) = try await subscribe(port, query: "geometry=\(PercentEncoding.encode("\(sandy.xmin),\(sandy.ymin),\(midX),\(sandy.ymax)"))")
        let (thin, _) = try await subscribe(port, query: "outFields=speed,heading&outSR=3857")
        let (changed, _) = try await subscribe(port, query: "")
        try await changed.send(#"{"filter":{"where":"vehicletype = 'Plow'"}}"#)
        let (reply, early) = try await readUntilReply(changed)
        let status = try await json(port, "/status")
        let clients = status["services"]?[0]?["clients"]?.arrayValue ?? []
        func joined(_ matches: (JSONValue) -> Bool) -> Int { Int(clients.first { matches($0["filter"] ?? .null) }?["joinedAt"]?.intValue ?? -1) }
        let offsets = (all: joined { $0.objectValue?.isEmpty == true }, fast: joined { $0["where"]?.stringValue == "speed > 15 AND agency = 4" },
                       boxed: joined { $0["geometry"] != nil }, thin: joined { $0["outSR"]?.intValue == 3857 },
                       changed: joined { $0["where"]?.stringValue == "vehicletype = 'Plow'" })
        // The unfiltered stream must reach past what every later subscriber reads: on a busy machine the
        // subscriptions above take seconds, hundreds of the fleet's reports, so read that lead on top.
        let lead = [offsets.fast, offsets.boxed, offsets.thin, offsets.changed].max()! - offsets.all

        async let allFeatures = read(all, count: 1500 + max(0, lead)).features
        async let fastFeatures = read(fast, count: 100).features
        async let boxedFeatures = read(boxed, count: 300).features
        async let thinFeatures = read(thin, count: 400).features
        async let changedFeatures = read(changed, count: 150 - early.count).features
        let everything = try await (first + allFeatures).map(Report.init)
        let (f, b, t, rest) = try await (fastFeatures, boxedFeatures, thinFeatures, changedFeatures)
        let c = early + rest
        #expect(isGapFree(everything, vehicles: 12, periodMilliseconds: 20), "the unfiltered subscriber missed or repeated a report")
        #expect(clients.count == 5 && [offsets.all, offsets.fast, offsets.boxed, offsets.thin, offsets.changed].allSatisfy { $0 >= 0 }, "\(clients)")

        /// `got` must be the start of what `admits` keeps of the unfiltered stream from `offset` on (compared as far as both go).
        func expectPrefix(_ got: [Report], from offset: Int, admits: (Report) -> Bool, _ what: String) {
            let expected = everything.dropFirst(offset - offsets.all).filter(admits)
            let common = min(got.count, expected.count)
            #expect(common >= min(got.count, 50), "\(what): only \(common) to compare")
            let mismatch = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(mismatch == nil, "\(what): the \(mismatch ?? 0)th report differs")
        }
        expectPrefix(f.map(Report.init), from: offsets.fast, admits: { $0.speed > 15 && $0.agency == 4 }, "where")
        expectPrefix(b.map(Report.init), from: offsets.boxed, admits: { $0.x >= sandy.xmin && $0.x <= midX && $0.y >= sandy.ymin && $0.y <= sandy.ymax }, "envelope")
        // outFields keep the track id; outSR 3857 is x = R·λ, y = R·ln(tan(π/4 + φ/2)).
        let source = Array(everything.dropFirst(offsets.thin - offsets.all))
        #expect(t.allSatisfy { $0["attributes"]?.objectValue?.keys.sorted() == ["heading", "speed", "vehiclename"] })
        let converted = zip(t, source).filter { feature, original in
            let x = 6_378_137 * original.x * .pi / 180, y = 6_378_137 * log(tan(.pi / 4 + original.y * .pi / 360))
            return feature["attributes"]?["vehiclename"]?.stringValue == original.name && feature["attributes"]?["speed"]?.doubleValue == original.speed
                && abs((feature["geometry"]?["x"]?.doubleValue ?? 0) - x) < 0.01 && abs((feature["geometry"]?["y"]?.doubleValue ?? 0) - y) < 0.01
        }
        #expect(converted.count == min(t.count, source.count), "outFields + outSR: \(converted.count) of \(min(t.count, source.count)) match the unfiltered reports")
        // read(_:count:) returns whole batches, so at least the count (more when the machine is busy and batches grow).
        #expect(t.count >= 400 && min(source.count, 400) >= 100, "\(t.count) thin reports, \(source.count) unfiltered to compare")
        // After the filter reply: only plows, and every plow of the unfiltered stream between its first and last.
        #expect(reply?["filter"]?["where"]?.stringValue == "vehicletype = 'Plow'" && reply?["error"] == nil)
        let plows = c.map(Report.init)
        #expect(plows.allSatisfy { $0.type == "Plow" })
        if let first = plows.first, let last = plows.last, let from = everything.firstIndex(of: first), let to = everything.firstIndex(of: last) {
            #expect(Array(everything[from...to].filter { $0.type == "Plow" }) == plows)
        } else {
            Issue.record("the filtered subscriber's reports are not in the unfiltered stream")
        }
        let after = try await json(port, "/status")["services"]?[0]?["clients"]?.arrayValue ?? []
        #expect(after.allSatisfy { $0["dropped"]?.intValue == 0 }, "nothing dropped for subscribers that keep up")
        for connection in [all, fast, boxed, thin, changed] { await connection.close() }
        #expect(await relay.stop() == 0)
        await simulator.stop()
    }

    /// A subscriber that never reads has its oldest messages dropped and counted (drop, the default) or is closed
    /// with 1008 (close), while a fast one, at the same time, receives the fleet's unbroken timeline.
    /// The fast one reads on a thread of its own (a blocking socket, as the slow one), not through the test
    /// process's async client and its JSON parsing: the full suite shares two cores, and that client fell
    /// behind under load (9,907 dropped at 2,500 messages/s). A 1 MiB queue gives it 1.4 s of slack.
    /// The relay's subscriber sockets get a 4 KiB send buffer (`ENTITYSTREAM_SERVER_SEND_BUFFER`): with the
    /// kernel's autotuning the slow one's socket took up to 4 MiB before its queue filled, 6.5-13 s of the
    /// fleet, which both subscribers' readers spent CPU on. The test reads until the policy has acted (the
    /// relay's status says so), not a fixed count: how much the slow one's socket buffers absorb first still
    /// depends on the kernel (a count sized for one machine was too small on another).
    @Test(arguments: ["drop", "close"]) func slowSubscriberHandledByThePolicy(policy: String) async throws {
        let (simulator, simulatorPort) = try await startFleet(["--fleet", "100", "--rate", "25"])
        let smallSendBuffers = ProcessInfo.processInfo.environment.merging([SocketSendBuffer.variable: "4096"]) { $1 }
        let (relay, port) = try await startServe(fleetURL(simulatorPort), ["--events", "status,error", "--client-queue", "1M", "--slow-clients", policy],
                                                 environment: smallSendBuffers)
        let path = "/arcgis/ws/services/SandyVehicles/StreamServer/subscribe"
        let slow = try await RawWebSocketClient.connect(port: port, path: path, receiveBufferBytes: 2048)
        let fast = try await RawWebSocketClient.connect(port: port, path: path)
        /// Whether the relay has acted on the slow one: counted drops (drop), or closed it (close). A client closed
        /// with 1008 has its queue dropped (counted) at once, and leaves `/status` once its close frame has gone
        /// out, which waits for its full socket: here, until the test reads its backlog below.
        func policyActed(_ service: JSONValue?) -> Bool {
            let clients = service?["clients"]?.arrayValue ?? []
            let dropped = clients.contains { ($0["dropped"]?.intValue ?? 0) > 0 }
            if policy == "close" { return clients.count < 2 || (service?["stream"]?["departedClients"]?.intValue ?? 0) > 0 || dropped }
            return dropped
        }
        var received: [[UInt8]] = []
        var service: JSONValue?
        repeat {
            received += await fast.read(messages: 1_000).messages
            let (answer, readMeanwhile) = try await Self.status(port, whileReading: fast)
            service = answer
            received += readMeanwhile
        } while !policyActed(service) && received.count < 40_000
        #expect(policyActed(service), "the relay did not act on the slow subscriber within 40,000 messages: \(String(describing: service))")
        let reports = try received.map { Report(try JSONParser.parse($0)) }
        #expect(reports.count >= 1_000 && isGapFree(reports, vehicles: 100, periodMilliseconds: 40),
                "the fast subscriber missed or repeated a report (\(reports.count) read)")
        // The slow one's backlog (socket buffers, then what its queue kept): read until the gap the drops left
        // shows (drop), or to the close frame (close).
        var seen: [Report] = []
        var close: (code: UInt16, reason: String)?
        while close == nil && seen.count < 40_000 && (policy == "close" || isGapFree(seen, vehicles: 100, periodMilliseconds: 40)) {
            let reading = await slow.read(messages: 1_000, timeoutMilliseconds: 5000)
            seen += reading.messages.compactMap { try? Report(JSONParser.parse($0)) }
            close = reading.close
            if reading.messages.isEmpty || reading.ended { break }
        }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.time <= $1.time } && Set(seen).count == seen.count,
                "the slow subscriber's messages are in time order, none twice")
        if policy == "close" {
            #expect(close?.code == 1008, "\(String(describing: close))")
            #expect(isGapFree(seen, vehicles: 100, periodMilliseconds: 40), "before the close, nothing is skipped")
        } else {
            #expect(!isGapFree(seen, vehicles: 100, periodMilliseconds: 40), "the oldest were dropped (\(seen.count) read)")
            let drops = (service?["clients"]?.arrayValue ?? []).map { $0["dropped"]?.intValue ?? -1 }
            #expect(drops.count == 2 && drops.filter { $0 > 0 }.count == 1 && drops.contains(0), "only the slow one had drops: \(drops)")
        }
        #expect(await relay.stop() == 0)
        await simulator.stop()
    }

    /// The relay's first service in `/status`, fetched while `fast` keeps reading (in small reads, so it stops
    /// soon after the answer): a subscriber that stopped reading would have its own drops within its 1.4 s of
    /// slack, and on a busy machine the request can take that long. Returns the messages read meanwhile too.
    private static func status(_ port: Int, whileReading fast: RawWebSocketClient) async throws -> (JSONValue?, [[UInt8]]) {
        try await withThrowingTaskGroup(of: (JSONValue??, [[UInt8]]).self) { group in
            group.addTask { (.some(try await json(port, "/status")["services"]?[0]), []) }
            group.addTask {
                var read: [[UInt8]] = []
                while !Task.isCancelled {
                    let reading = await fast.read(messages: 250)
                    read += reading.messages
                    if reading.messages.isEmpty || reading.ended { break }
                }
                return (nil, read)
            }
            var service: JSONValue?
            var read: [[UInt8]] = []
            while let (answer, messages) = try await group.next() {
                if let answer {
                    service = answer
                    group.cancelAll()
                }
                read += messages
            }
            return (service, read)
        }
    }

    /// With the upstream gone (the store then holds still), NAME_Tracks answers a time extent and grouped
    /// statistics exactly as the same queries run on the relay's store through its control commands.
    @Test func tracksLayerAnswersAsTheStore() async throws {
        let (simulator, simulatorPort) = try await startFleet(["--fleet", "10", "--rate", "20"])
        let (relay, port) = try await startServe(fleetURL(simulatorPort), [
            "--events", "status,analysis", "--max-observations", "0", "--reconnect-interval", "600", "--reconnect-attempts", "1"])
        let (client, _) = try await subscribe(port, query: "")
        let reports = try await read(client, count: 400).features.map(Report.init)
        await client.close()
        let connected = relay.count(.output)
        await simulator.stop()
        // The status change follows every observation through the pipeline: once printed, the store holds still.
        _ = await relay.line(.output, from: connected) { $0.contains("\"event\":\"status\"") && !$0.contains("\"connected\"") }
        let (start, end) = (reports[100].time, reports[300].time)

        let layer = try await json(port, "/arcgis/rest/services/SandyVehicles_Tracks/FeatureServer/0/query?where=\(PercentEncoding.encode("speed > 5"))&time=\(start),\(end)&outFields=*&f=json")
        var fromLayer: [Int64: Double] = [:]
        for feature in layer["features"]?.arrayValue ?? [] {
            fromLayer[feature["attributes"]?["OBJECTID_1"]?.intValue ?? feature["attributes"]?["OBJECTID"]?.intValue ?? -1] = feature["attributes"]?["speed"]?.doubleValue
        }
        let from = relay.count(.output)
        relay.write(#"{"id":1,"command":"query-observations","timeExtent":{"start":\#(start),"end":\#(end)},"where":"speed > 5","limit":1000000}"# + "\n")
        _ = await relay.line(.output, from: from) { $0.contains("\"id\":1") && $0.contains("\"phase\":\"summary\"") }
        var fromStore: [Int64: Double] = [:]
        for line in relay.text(.output).dropFirst(0).split(separator: "\n") where line.contains("\"id\":1") && line.contains("\"phase\":\"result\"") {
            let value = try JSONParser.parse(String(line))
            fromStore[value["observation"]?.intValue ?? -1] = value["attributes"]?["speed"]?.doubleValue
        }
        #expect(!fromStore.isEmpty && fromLayer == fromStore, "layer \(fromLayer.count) vs store \(fromStore.count)")
        #expect(fromStore.count == reports[100...300].filter { $0.speed > 5 }.count, "the test's own count of the extent")

        let statistics = #"[{"statisticType":"avg","onStatisticField":"speed","outStatisticFieldName":"avg_speed"},{"statisticType":"count","onStatisticField":"vehiclename","outStatisticFieldName":"n"},{"statisticType":"stddev","onStatisticField":"heading","outStatisticFieldName":"sd"}]"#
        let grouped = try await json(port, "/arcgis/rest/services/SandyVehicles_Tracks/FeatureServer/0/query?where=1%3D1&time=\(start),\(end)&outStatistics=\(PercentEncoding.encode(statistics))&groupByFieldsForStatistics=vehicletype&having=\(PercentEncoding.encode("COUNT(vehiclename) > 3"))&f=json")
        let layerGroups = Dictionary(uniqueKeysWithValues: (grouped["features"]?.arrayValue ?? []).map {
            ($0["attributes"]?["vehicletype"]?.stringValue ?? "", [$0["attributes"]?["avg_speed"]?.doubleValue, $0["attributes"]?["n"]?.doubleValue, $0["attributes"]?["sd"]?.doubleValue])
        })
        let before = relay.count(.output)
        relay.write(#"{"id":2,"command":"statistics","of":"observations","statistics":[{"type":"avg","field":"speed","alias":"avg_speed"},{"type":"count","field":"vehiclename","alias":"n"},{"type":"stddev","field":"heading","alias":"sd"}],"groupBy":["vehicletype"],"having":"COUNT(vehiclename) > 3","timeExtent":{"start":\#(start),"end":\#(end)}}"# + "\n")
        _ = await relay.line(.output, from: before) { $0.contains("\"id\":2") && $0.contains("\"phase\":\"summary\"") }
        var storeGroups: [String: [Double?]] = [:]
        for line in relay.text(.output).split(separator: "\n") where line.contains("\"id\":2") && line.contains("\"phase\":\"result\"") {
            let value = try JSONParser.parse(String(line))
            storeGroups[value["group"]?["vehicletype"]?.stringValue ?? ""] = ["avg_speed", "n", "sd"].map { value["statistics"]?[$0]?.doubleValue }
        }
        #expect(!storeGroups.isEmpty && Set(layerGroups.keys) == Set(storeGroups.keys))
        for (key, values) in storeGroups {
            for (a, b) in zip(values, layerGroups[key] ?? []) {
                #expect(a != nil && b != nil && abs(a! - b!) <= 1e-9 * max(1, abs(a!)), "\(key): store \(values) layer \(layerGroups[key] ?? [])")
            }
        }
        #expect(await relay.stop() == 0)
    }

    /// The relay asks its own clients for its own token and never forwards, prints or hands out the upstream's:
    /// neither appears in its output, its logs, its answers or its messages (the relay's token only in the
    /// description's streamUrls, as ArcGIS hands a socket token to the client that authenticated).
    @Test func tokensNeverAppear() async throws {
        let upstream = "upstream-S3cret-77", own = "relay-T0ken-42"
        let (simulator, simulatorPort) = try await startFleet(["--fleet", "3", "--rate", "20", "--token", upstream])
        let (relay, port) = try await startServe(fleetURL(simulatorPort), ["--upstream-token", upstream, "--token", own, "--events", "all"])
        #expect(try await json(port, "/arcgis/rest/services/SandyVehicles/StreamServer?f=json")["error"]?["code"]?.intValue == 499)
        #expect(try await json(port, "/status", token: "wrong")["error"]?["code"]?.intValue == 498)
        do {
            _ = try await RawWebSocketClient.connect(port: port, path: "/arcgis/ws/services/SandyVehicles/StreamServer/subscribe")
            Issue.record("a socket without the token was accepted")
        } catch {
            #expect("\(error)".contains("401"))
        }
        var answers: [String] = []
        for path in ["/arcgis/rest/services/SandyVehicles/StreamServer?f=json", "/status", "/",
                     "/arcgis/rest/services/SandyVehicles_Latest/FeatureServer/0/query?where=1%3D1&outFields=*&f=json",
                     "/arcgis/rest/services/SandyVehicles_Tracks/FeatureServer/0?f=json", "/arcgis/rest/services?f=json"] {
            let response = try await get(port, path, token: own)
            #expect(response.status == 200, "\(path)")
            answers.append(String(decoding: response.body, as: UTF8.self))
        }
        #expect(answers[0].contains(own), "the description hands the relay's own socket token to its authenticated client")
        let (connection, _) = try await subscribe(port, query: "", token: own)
        let messages = try await read(connection, count: 30).features.map { "\($0)" }
        await connection.close()
        #expect(await relay.stop() == 0)
        await simulator.stop()
        let output = relay.text(.output), logs = relay.text(.error)
        #expect(output.contains("\"event\":\"observation\""), "the output was captured")
        for text in [output, logs] + answers + messages {
            #expect(!text.contains(upstream), "the upstream token appeared")
        }
        for text in [output, logs] + answers.dropFirst() { #expect(!text.contains(own), "the relay's token appeared") }
    }

    /// A replayed file is served too: subscribers get its features, and after it ends the relay goes on
    /// serving the store (its status says so) until stopped, then exits 0.
    @Test func servesAReplayAndKeepsServingAfterItEnds() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("serve-replay-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = (0..<300).map { #"{"geometry":{"x":\#(-122 + Double($0 % 30) * 0.01),"y":\#(47 + Double($0 % 20) * 0.01),"spatialReference":{"wkid":4326}},"attributes":{"ship":"S\#($0 % 5)","seq":\#($0)}}"# }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let (relay, port) = try await startServe(path, ["--track-field", "ship", "--interval", "20", "--name", "Ships", "--events", "status,error"])
        let description = try await json(port, "/arcgis/rest/services/Ships/StreamServer?f=json")
        #expect(description["timeInfo"]?["trackIdField"]?.stringValue == "ship")
        let connection = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/arcgis/ws/services/Ships/StreamServer/subscribe?where=\(PercentEncoding.encode("seq >= 100"))")
        let features = try await read(connection, count: 200).features
        #expect(features.map { $0["attributes"]?["seq"]?.intValue ?? -1 } == Array(100..<300))
        await connection.close()
        _ = await relay.line(.error) { $0.contains("the source ended") }
        let status = try await json(port, "/status")
        #expect(status["services"]?[0]?["source"]?["status"]?.stringValue == "ended")
        #expect(status["services"]?[0]?["store"]?["entities"]?.intValue == 5)
        let latest = try await json(port, "/arcgis/rest/services/Ships_Latest/FeatureServer/0/query?where=1%3D1&outFields=ship,seq&orderByFields=ship&f=json")
        #expect((latest["features"]?.arrayValue ?? []).map { $0["attributes"]?["seq"]?.intValue ?? -1 } == [295, 296, 297, 298, 299])
        #expect(await relay.stop() == 0)
    }

    /// Bad flags are usage errors (status 2) naming what is wrong; a port already taken is a runtime failure
    /// (status 1) before anything is read; the server listens on exactly the address asked for.
    @Test func usageErrorsAndBinding() async throws {
        let cases: [([String], String)] = [
            (["serve"], "missing the SOURCE"),
            (["serve", "--port", "8080", "http://127.0.0.1:1/arcgis/rest/services/X/StreamServer"], "give the SOURCE first"),
            (["serve", "plows.json", "--upstream-token", "t"], "--upstream-token"),
            (["serve", "plows.json", "--slow-clients", "maybe"], "--slow-clients"),
            (["serve", "plows.json", "--client-queue", "10"], "--client-queue"),
            (["serve", "plows.json", "--hold"], "--hold"),
            (["serve", "plows.json", "--name", "a/b"], "--name"),
            (["serve", "plows.json", "--host", "192.0.2.1"], "--host"),
            (["serve", "plows.json", "--tls-cert", "c.pem"], "--tls-cert and --tls-key"),
            // A JetStream source is consume's, with consume's checks (before any connection).
            (["serve", "nats://127.0.0.1:4222/plows", "--upstream-token", "t"], "NATS credentials"),
            (["serve", "consume", "nats://127.0.0.1:4222/plows", "--where", "speed > 1"], "consume: --where"),
            (["serve", "nats://127.0.0.1:4222/plows", "--partition", "4/4"], "--partition"),
        ]
        let version = try await CommandLineTool.run("entitystream", ["serve", "--version"])
        #expect(version.status == 0 && version.standardOutput.hasPrefix("entitystream "), "\(version.standardOutput) \(version.standardError)")
        for (arguments, message) in cases {
            let result = try await CommandLineTool.run("entitystream", arguments)
            #expect(result.status == 2 && result.standardError.contains(message), "\(arguments): \(result.status) \(result.standardError)")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("serve-bind-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"geometry":{"x":1,"y":2},"attributes":{"id":"a"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let (relay, port) = try await startServe(path, ["--track-field", "id", "--host", "127.0.0.1"])
        let other = await RawTCPExchange.exchange(port: port, send: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), readLimit: 16, timeoutMilliseconds: 2000,
                                                  closeWriting: true)
        #expect(other.connected, "127.0.0.1 answers")
        #expect(!Self.connects(to: "127.0.0.2", port: port), "another loopback address is not listened on")
        let taken = try await CommandLineTool.run("entitystream", ["serve", path, "--track-field", "id", "--port", String(port), "--duration", "5"])
        #expect(taken.status == 1 && taken.standardError.contains("serve"), "\(taken.standardError)")
        #expect(await relay.stop() == 0)
    }

    private static func connects(to host: String, port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
