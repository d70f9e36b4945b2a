import EntityStreamTestSupport
import Foundation
import Testing

/// `GET path` on loopback `port`; the answer's body (chunked or not) as JSON.
private func getJSON(_ port: Int, _ path: String) async throws -> [String: Any] {
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
    let answer = await RawTCPExchange.exchange(port: port, send: Array(request.utf8), readLimit: 8 << 20)
    let text = answer.text
    let split = try #require(text.range(of: "\r\n\r\n"), "no HTTP answer: \(text.prefix(300))")
    let head = text[..<split.lowerBound].lowercased()
    #expect(head.hasPrefix("http/1.1 200"), "\(head)")
    var body = String(text[split.upperBound...])
    if head.contains("transfer-encoding: chunked") {
        var joined = ""
        var rest = Substring(body)
        while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
            let start = line.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            joined += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        body = joined
    }
    return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "not a JSON object: \(body.prefix(300))")
}

/// A feature's track and attributes text (sorted keys): what identifies an AIS line.
private func trackAndAttributes(_ object: [String: Any], trackField: String) throws -> (String, String) {
    let attributes = try #require(object["attributes"] as? [String: Any])
    let track = try #require(attributes[trackField] as? String)
    let data = try JSONSerialization.data(withJSONObject: attributes, options: [.sortedKeys])
    return (track, String(decoding: data, as: UTF8.self))
}

@Suite("serve over a JetStream stream: a relay fed by consume, acknowledging on the store", .bounded(.io))
struct JetStreamServeTests {
    static let ais = SharedData.path(SharedData.ais)
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }
    /// Observations published through the relay (the count is not what is tested: every one, in order).
    static let published = 3000

    /// A real nats-server; a seed observation creates the stream; `serve nats://…` with a durable consumer relays
    /// it. A WebSocket subscriber then receives every observation of the recording published afterwards, in order
    /// per track; the layers hold them all; and the relay, which prints no observation, has acknowledged every
    /// message it stored: the same durable consumer started again has nothing left.
    @Test("A relay serving a JetStream stream fans out every published observation, holds them in its layers, acknowledges them all",
          .enabled(if: ready))
    func servesAStream() async throws {
        // A stream of this test's own (VESSELS, subjects vessels.>) on the shared server.
        let server = try await SharedAISStream.server()
        let seed = FileManager.default.temporaryDirectory.appendingPathComponent("es-seed-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: seed) }
        // The recording's first 3,000 lines (all 14 vessels) are what is published; the next one alone, as
        // another service, is the seed.
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("es-served-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let recorded = try String(contentsOfFile: Self.ais, encoding: .utf8).split(separator: "\n").prefix(Self.published + 1)
        let lines = recorded.prefix(Self.published)
        try (lines.joined(separator: "\n") + "\n").write(toFile: recording, atomically: true, encoding: .utf8)
        let first = try #require(recorded.last)
        try (first + "\n").write(toFile: seed, atomically: true, encoding: .utf8)
        let seeded = try await CommandLineTool.run("entitystream", ["replay", seed, "--track-field", "MMSI", "--events", "observation",
                                                              "--publish", "\(server.url)/vessels", "--create-stream", "VESSELS", "--publish-service", "seed"])
        #expect(seeded.status == 0 && seeded.standardError.contains("1 stored"), "\(seeded.standardError)")

        let relay = try CapturedProcess(CommandLineTool.path("entitystream"), [
            "serve", "\(server.url)/VESSELS", "--durable", "relay", "--from-start", "--port", "0", "--name", "Vessels"])
        defer { relay.child.signal(SIGKILL); _ = relay.child.wait() }
        let port = try #require(await relay.port(), "serve did not start: \(relay.text(.error))")
        _ = try #require(await relay.line(.error) { $0.contains("described its stream") }, "\(relay.text(.error))")
        #expect(relay.text(.error).contains("acknowledging each message once its observation is in the store"))

        let socket = try await RawWebSocketClient.connect(port: port, path: "/arcgis/ws/services/Vessels/StreamServer/subscribe")
        _ = try #require(await relay.line(.error) { $0.contains("subscriber") && $0.contains("joined") }, "\(relay.text(.error))")
        let published = try await CommandLineTool.run("entitystream", ["replay", recording, "--track-field", "MMSI", "--events", "observation",
                                                                 "--publish", "\(server.url)/vessels"])
        #expect(published.status == 0 && published.standardError.contains("\(Self.published) stored, 0 duplicates"), "\(published.standardError)")

        // The subscriber receives the recording: every observation once, in order per track. The seed came
        // before it joined; but a relay still handing the seed on when it joins gives it the seed first.
        let seedObservation = try trackAndAttributes(try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]),
                                                     trackField: "MMSI")
        var messages = await socket.read(messages: Self.published, timeoutMilliseconds: 60_000).messages
        if let message = messages.first,
           let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any],
           try trackAndAttributes(object, trackField: "MMSI") == seedObservation {
            messages.removeFirst()
            messages += await socket.read(messages: 1, timeoutMilliseconds: 60_000).messages
        }
        #expect(messages.count == Self.published, "\(relay.text(.error).suffix(2000))")
        var received: [String: [String]] = [:]
        for message in messages {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])
            let (track, attributes) = try trackAndAttributes(object, trackField: "MMSI")
            received[track, default: []].append(attributes)
        }
        var expected: [String: [String]] = [:]
        for line in published.standardOutput.split(separator: "\n") where line.hasPrefix("{\"event\":\"observation\"") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let (track, attributes) = try trackAndAttributes(object, trackField: "MMSI")
            expected[track, default: []].append(attributes)
        }
        #expect(expected.count == 14 && expected.values.map(\.count).reduce(0, +) == Self.published)
        #expect(received == expected)

        // What the socket carried is in the store: the track history holds the seed and the recording, per track;
        // the latest layer one feature per vessel.
        let count = try await getJSON(port, "/arcgis/rest/services/Vessels_Tracks/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")
        #expect((count["count"] as? Int) == Self.published + 1, "\(count)")
        let statistics = #"[{"statisticType":"count","onStatisticField":"MMSI","outStatisticFieldName":"n"}]"#
        let grouped = try await getJSON(port, "/arcgis/rest/services/Vessels_Tracks/FeatureServer/0/query?where=1%3D1"
                                        + "&groupByFieldsForStatistics=MMSI&outStatistics=\(try #require(statistics.addingPercentEncoding(withAllowedCharacters: .alphanumerics)))&f=json")
        var perTrack: [String: Int] = [:]
        for feature in grouped["features"] as? [[String: Any]] ?? [] {
            let attributes = try #require(feature["attributes"] as? [String: Any])
            perTrack[try #require(attributes["MMSI"] as? String)] = try #require(attributes["n"] as? Int)
        }
        let seedTrack = seedObservation.0
        var expectedCounts = expected.mapValues(\.count)
        expectedCounts[seedTrack, default: 0] += 1
        #expect(perTrack == expectedCounts)
        let latest = try await getJSON(port, "/arcgis/rest/services/Vessels_Latest/FeatureServer/0/query?where=1%3D1&outFields=*&f=json")
        #expect((latest["features"] as? [Any])?.count == 14)

        // Stopped, the relay has acknowledged everything it stored, though it printed no observation line:
        // the same durable consumer has nothing left (acknowledged on written lines, all 3,001 would come again).
        relay.child.signal(SIGTERM)
        #expect(relay.child.wait() == 0, "\(relay.text(.error).suffix(2000))")
        #expect(!relay.text(.output).contains("\"event\":\"observation\""))
        let after = try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/VESSELS", "--durable", "relay", "--events", "observation",
                                                             "--until-caught-up"])
        #expect(after.status == 0 && after.standardOutput.isEmpty && after.standardError.contains("0 messages"), "\(after.standardError)")
    }
}
