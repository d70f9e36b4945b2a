import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
@testable import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel

/// A recording file with these `"t"` offsets (a message per offset) and its path.
private func recording(offsets: [String]) throws -> String {
    var lines = [#"{"recording":"entitystream","version":1,"service":"http://h/arcgis/rest/services/R/StreamServer","startedAt":0,"description":{"fields":[{"name":"id","type":"esriFieldTypeString"}],"timeInfo":{"trackIdField":"id"},"spatialReference":{"wkid":4326},"streamUrls":[{"transport":"ws","urls":["ws://h/s"],"token":"recorded-secret"}]}}"#]
    for (index, offset) in offsets.enumerated() {
        lines.append(#"{"t":\#(offset),"message":{"geometry":{"x":-111.9,"y":40.6},"attributes":{"id":"T\#(index)"}}}"#)
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rec-\(UUID().uuidString).json").path
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite("Simulator hardening", .bounded(.io))
struct SimulatorHardeningTests {
    /// The service list asks for the token like every REST endpoint (499 without, 498 wrong, the list with it).
    @Test func serviceListNeedsTheToken() async throws {
        let server = try await startSimulator([ServiceSpecification(name: "SandyVehicles", source: .fleet(FleetConfiguration(vehicles: 2)))]) {
            $0.token = "rest-secret"
        }
        let base = "http://127.0.0.1:\(server.port)/arcgis/rest/services"
        let missing = try JSONParser.parse(try await HTTPClient().get("\(base)?f=json").body)
        #expect(missing["error"]?["code"] == .int(499))
        #expect(missing["services"] == nil)
        let wrong = try JSONParser.parse(try await HTTPClient().get("\(base)?f=json&token=nope").body)
        #expect(wrong["error"]?["code"] == .int(498))
        let listed = try JSONParser.parse(try await HTTPClient().get("\(base)?f=json&token=rest-secret").body)
        #expect(listed["services"]?[0]?["name"] == .string("SandyVehicles"))
        await server.shutdown()
    }

    /// `streamUrls` name the address the simulator listens on, whatever `Host` the request claims.
    @Test func hostHeaderIsNotReflected() async throws {
        let server = try await startSimulator([ServiceSpecification(name: "SandyVehicles", source: .fleet(FleetConfiguration(vehicles: 2)))])
        let request = "GET /arcgis/rest/services/SandyVehicles/StreamServer?f=json HTTP/1.1\r\nHost: evil.example:666\r\nConnection: close\r\n\r\n"
        let answer = await RawTCPExchange.exchange(port: server.port, send: Array(request.utf8))
        let body = try #require(answer.text.range(of: "\r\n\r\n").map { String(answer.text[$0.upperBound...]) })
        #expect(!answer.text.contains("evil.example"))
        let description = try ServiceDescription(json: Array(body.utf8))
        #expect(description.webSocketURLs == ["ws://127.0.0.1:\(server.port)/arcgis/ws/services/SandyVehicles/StreamServer"])
        await server.shutdown()
    }

    /// Out-of-bounds time settings are refused when the server starts, naming the value (they used to crash it at the first subscriber).
    @Test(arguments: [
        ("speed", 1e-300, 10), ("speed", 1e308, 10), ("speed", .nan, 10), ("interval", 1, Int64.max), ("interval", 1, -1),
    ] as [(String, Double, Int64)])
    func extremeTimeSettingsAreRefused(name: String, speed: Double, interval: Int64) async throws {
        do {
            let server = try await startSimulator([ServiceSpecification(name: "S", source: .fleet(FleetConfiguration(vehicles: 1)))]) {
                $0.pacing.speed = speed
                $0.pacing.intervalMilliseconds = interval
            }
            await server.shutdown()
            Issue.record("accepted \(name)")
        } catch {
            #expect("\(error)".hasPrefix(name), "\(error)")
        }
    }

    /// A feed cursor whatever its pacing — a tiny speed, huge offsets looping,
    /// an interval of Int64.max — yields due times within the instants there
    /// are, never trapping.
    @Test func feedCursorNeverTraps() {
        let huge: Int64 = 5_000_000_000_000_000_000
        let entries = [RecordingFile.Entry(offsetMilliseconds: 0, message: Array("{}".utf8), line: 2),
                       RecordingFile.Entry(offsetMilliseconds: huge, message: Array("{}".utf8), line: 3),
                       RecordingFile.Entry(offsetMilliseconds: .max, message: Array("{}".utf8), line: 4)]
        let now: Int64 = 1_795_254_572_989
        for pacing in [SimulatorPacing(speed: 1e-300, loop: true), SimulatorPacing(speed: 1e308, loop: true), SimulatorPacing(speed: 1, loop: true),
                       SimulatorPacing(intervalMilliseconds: .max, loop: true)] {
            for timed in [true, false] {
                var cursor = FeedCursor(feed: .messages(entries, timed: timed), pacing: pacing, serverStart: now, now: now)
                for _ in 0..<9 {
                    let due = cursor.next()?.due
                    #expect(due.map { Instant.range.contains($0) } == true)
                }
            }
        }
        let observations = [Observation(geometry: nil, attributes: [], receivedAt: Instant.range.lowerBound),
                            Observation(geometry: nil, attributes: [], receivedAt: Instant.range.upperBound)]
        var csv = FeedCursor(feed: .observations(observations), pacing: SimulatorPacing(speed: 1e-6, loop: true), serverStart: now, now: now)
        for _ in 0..<5 { #expect(csv.next()?.due.map { Instant.range.contains($0) } == true) }
    }

    /// A recording is replayed on its own timeline: each message is due at
    /// its recorded offset after the subscriber joined, divided by the speed,
    /// and a loop's second pass starts one span (last offset + 1 ms) later.
    @Test(arguments: [1.0, 10.0])
    func recordedMessagesAreDueAtTheirOffsets(speed: Double) {
        let offsets: [Int64] = [0, 180, 200, 1_450, 3_003]
        let entries = offsets.enumerated().map { index, offset in
            RecordingFile.Entry(offsetMilliseconds: offset, message: Array("{\"n\":\(index)}".utf8), line: index + 2)
        }
        let joined: Int64 = 1_800_000_000_000
        var cursor = FeedCursor(feed: .messages(entries, timed: true), pacing: SimulatorPacing(speed: speed, loop: true),
                                serverStart: joined - 5_000, now: joined)
        let span = Double(offsets.last! + 1)
        for pass in 0..<2 {
            for offset in offsets {
                let expected = joined + Int64(((Double(offset) + Double(pass) * span) / speed).rounded())
                #expect(cursor.next()?.due == expected, "offset \(offset), pass \(pass)")
            }
        }
    }

    /// A recording with unusable lines (a "t" beyond the bounds, a broken
    /// line) is served without them, and each is announced.
    @Test func unusableRecordingLinesAreSkippedAndAnnounced() async throws {
        let path = try recording(offsets: ["0", "9223372036854775807", "0.5", "20"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = AsyncStreamBox<String>()
        let server = try await startSimulator([ServiceSpecification(name: "R", source: .recording(path: path))]) {
            $0.pacing.burst = true
            $0.log = { log.yield($0) }
        }
        let first = await log.next() ?? ""
        let second = await log.next() ?? ""
        #expect(first.contains("line 3:") && first.contains("\"t\" must be a whole number of milliseconds"), "\(first)")
        #expect(second.contains("line 4:") && second.hasSuffix("skipped"), "\(second)")
        let connection = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/arcgis/ws/services/R/StreamServer/subscribe")
        var ids: [String] = []
        for try await batch in connection.inbound {
            for index in batch.indices { ids.append(try JSONParser.parse(Array(batch[index]))["attributes"]?["id"]?.stringValue ?? "?") }
            if ids.count >= 2 { break }
        }
        #expect(ids == ["T0", "T3"])
        await connection.close()
        let description = try JSONParser.parse(try await HTTPClient().get(server.serviceURL("R") + "?f=json").body)
        #expect(!description.description.contains("recorded-secret"))
        await server.shutdown()
    }
}
