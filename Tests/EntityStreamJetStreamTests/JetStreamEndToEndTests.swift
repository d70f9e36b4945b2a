import EntityStreamTestSupport
import Foundation
import EntityStreamJetStream
import Testing

/// Each observation line's track and attributes text (sorted keys): what identifies an AIS line
/// (each has its own globalid).
func trackedLines<Lines: Sequence>(_ lines: Lines) throws -> [(track: String, attributes: String)] where Lines.Element: StringProtocol {
    var entries: [(track: String, attributes: String)] = []
    for line in lines where line.hasPrefix("{\"event\":\"observation\"") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let track = try #require(object["track"] as? String)
        let attributes = try JSONSerialization.data(withJSONObject: try #require(object["attributes"]), options: [.sortedKeys])
        entries.append((track, String(decoding: attributes, as: UTF8.self)))
    }
    return entries
}

/// Lines grouped by track, in order.
func grouped(_ entries: [(track: String, attributes: String)]) -> [String: [String]] {
    var tracks: [String: [String]] = [:]
    for entry in entries { tracks[entry.track, default: []].append(entry.attributes) }
    return tracks
}

/// The observation lines of a run, per track, in order: each line's attributes text.
func tracks(_ output: String) throws -> [String: [String]] {
    grouped(try trackedLines(output.split(separator: "\n")))
}

func observationLines(_ output: String) -> [Substring] {
    output.split(separator: "\n").filter { $0.hasPrefix("{\"event\":\"observation\"") }
}

@Suite("JetStream end to end: replay --publish into a real nats-server, consume out of it", .bounded(.io))
struct JetStreamEndToEndTests {
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }

    /// The recording published once into stream AIS of the shared server (``SharedAISStream``);
    /// each test reads it with a consumer of its own.
    func published() async throws -> SharedAISStream {
        let stream = try await SharedAISStream.get()
        #expect(stream.published.status == 0, "\(stream.published.standardError)")
        #expect(stream.published.standardError.contains("8400 stored, 0 duplicates"), "\(stream.published.standardError)")
        return stream
    }

    @Test("Every observation reaches the consumer once, in order per track, with the same attributes", .enabled(if: ready))
    func countsAndOrder() async throws {
        let stream = try await published()
        let server = stream.server
        let consumed = try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/AIS", "--durable", "all", "--from-start",
                                                                "--events", "observation", "--until-caught-up"])
        #expect(consumed.status == 0 && consumed.standardError.contains("8400 acknowledged; caught up"), "\(consumed.standardError)")
        // Started again with nothing pending, it is caught up at once.
        let again = try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/AIS", "--durable", "all", "--events", "observation",
                                                             "--until-caught-up"])
        #expect(again.status == 0 && again.standardOutput.isEmpty && again.standardError.contains("0 messages"), "\(again.standardError)")
        let expected = stream.tracks
        let got = try tracks(consumed.standardOutput)
        #expect(expected.count == 14)
        #expect(got.keys.sorted() == expected.keys.sorted())
        for (track, lines) in expected { #expect(got[track] == lines, "track \(track)") }
        #expect(!consumed.standardOutput.contains("redelivered"))
    }

    /// The first publisher is the shared stream's; the second publishes the same recording
    /// under the service name the first took from the file's name.
    @Test("Two publishers of the same recording store each observation once", .enabled(if: ready))
    func twoPublishersStoreOnce() async throws {
        let server = try await published().server
        let second = try await CommandLineTool.run("entitystream", [
            "replay", SharedAISStream.ais, "--track-field", "MMSI", "--events", "observation", "--publish", "\(server.url)/ais",
            "--publish-service", "AIS_MarineCadastre_SelectedVessels_CustomDataSource"])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains("0 stored, 8400 duplicates"), "\(second.standardError)")
        // The stream holds 8,399 messages: the 8,400th does not exist.
        let beyond = try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/AIS", "--from-sequence", "8400",
                                                              "--events", "observation", "--until-caught-up"])
        #expect(beyond.status == 0 && beyond.standardError.contains("caught up"), "\(beyond.standardError)")
        #expect(observationLines(beyond.standardOutput).count == 1, "\(beyond.standardError)")
    }

    @Test("A consumer killed mid-stream and started again loses nothing and marks every repeated line", .enabled(if: ready))
    func killedConsumerLosesNothing() async throws {
        let stream = try await published()
        let server = stream.server
        let arguments = ["consume", "\(server.url)/AIS", "--durable", "k", "--from-start", "--events", "observation", "--batch", "256"]
        let first = try RunningProcess(CommandLineTool.path("entitystream"), arguments)
        let before = await first.offPool { $0.readLines(3000) }
        first.signal(SIGKILL)
        let killed = await first.offPool { $0.wait() }
        #expect(before.count == 3000, "status \(killed): \(String(decoding: ChildProcess.read(first.child.standardError), as: UTF8.self))")
        // A last line the kill cut short (no newline after it) was not written, and is not counted as written.
        let output = await first.offPool { $0.remainingOutput() }
        let rest = output.lastIndex(of: "\n").map { String(output[...$0]) } ?? ""
        let firstLines = (before.map { Substring($0) } + observationLines(rest)).filter { $0.hasPrefix("{\"event\":\"observation\"") }
        let second = try await CommandLineTool.run("entitystream", arguments + ["--until-caught-up"])
        #expect(second.status == 0, "\(second.standardError)")
        let secondLines = observationLines(second.standardOutput)
        // A line's identity: its attributes (each AIS line has its own globalid).
        let firstEntries = try trackedLines(firstLines)
        let secondEntries = try trackedLines(secondLines)
        let written = Set(firstEntries.map(\.attributes))
        var again = 0
        for (line, entry) in zip(secondLines, secondEntries) where written.contains(entry.attributes) {
            // Every line the first run wrote that comes again is marked.
            #expect(line.contains("\"redelivered\":true"), "\(line)")
            again += 1
        }
        let marked = secondLines.filter { $0.contains("\"redelivered\":true") }.count
        // Nothing is lost: together the runs wrote every observation; what came again is
        // bounded by what the first run had fetched and not acknowledged.
        #expect(firstLines.count + secondLines.count - again == 8400, "first \(firstLines.count), second \(secondLines.count), again \(again)")
        // The consumer hands over at most two batches of 256 more than its output has written, and has
        // at most two more requested (delivered or on their way).
        #expect(marked >= again && marked <= 4 * 256, "\(marked) marked")
        // Per track, the first run's lines and then the second run's new ones are the recording in order.
        var merged = grouped(firstEntries)
        for entry in secondEntries where !written.contains(entry.attributes) { merged[entry.track, default: []].append(entry.attributes) }
        #expect(merged == stream.tracks)
    }

    @Test("A consumer stopped with messages fetched and not written loses none of them when started again", .enabled(if: ready))
    func stoppedConsumerLosesNothing() async throws {
        let stream = try await published()
        let server = stream.server
        let arguments = ["consume", "\(server.url)/AIS", "--durable", "l", "--from-start", "--events", "observation", "--batch", "256"]
        // Fetches come in 256s: the 3,000th line leaves fetched messages unwritten and unacknowledged.
        let first = try await CommandLineTool.run("entitystream", arguments + ["--limit", "3000"])
        let second = try await CommandLineTool.run("entitystream", arguments + ["--until-caught-up"])
        #expect(first.status == 0 && second.status == 0, "\(first.standardError) \(second.standardError)")
        let firstLines = observationLines(first.standardOutput)
        let secondLines = observationLines(second.standardOutput)
        #expect(firstLines.count == 3000)
        #expect(firstLines.count + secondLines.count == 8400, "\(second.standardError)")
        let merged = grouped(try trackedLines(firstLines) + trackedLines(secondLines))
        #expect(merged == stream.tracks)
        // The ones fetched before and not acknowledged come first, marked.
        #expect(secondLines.first?.contains("\"redelivered\":true") == true)
    }

    @Test("Four partitions of a mapped stream take every track exactly once, in order", .enabled(if: ready))
    func partitions() async throws {
        let stream = try await published()
        let server = stream.server
        let expected = stream.tracks
        var union: [String: [String]] = [:]
        var total = 0
        // Each partition reads until the stream has nothing more for it (the four at once).
        let runs = try await withThrowingTaskGroup(of: (Int, ProcessRunner.Result).self) { group in
            for index in 0..<4 {
                group.addTask {
                    (index, try await CommandLineTool.run("entitystream", ["consume", "\(server.url)/AIS", "--durable", "p\(index)", "--from-start",
                                                                          "--partition", "\(index)/4", "--events", "observation", "--until-caught-up"]))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for index in 0..<4 {
            let run = try #require(runs[index])
            #expect(run.status == 0 && run.standardError.contains("caught up"), "\(run.standardError)")
            let part = try tracks(run.standardOutput)
            for (track, lines) in part {
                #expect(union[track] == nil, "track \(track) in two partitions")
                union[track] = lines
                total += lines.count
            }
        }
        #expect(total == 8400)
        #expect(union == expected)
    }
}

@Suite("JetStream faults: a broker killed during ingestion, a cluster node killed during ingestion", .bounded(.io))
struct JetStreamFaultTests {
    static let ais = SharedData.path(SharedData.ais)
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }
    /// Observations each test publishes (the recording's first lines: every one of its 14 tracks), and how
    /// many go out before the broker or node is killed. What is tested is a fault in the middle of paced
    /// ingestion, not the count: fewer lines keep the test short (1 ms apart).
    static let published = 1500
    static let beforeTheFault = 500

    /// The recording's first ``published`` lines, in a file of the test's own.
    static func input() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("es-faults-\(UUID().uuidString).json").path
        let lines = try String(contentsOfFile: ais, encoding: .utf8).split(separator: "\n").prefix(published)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Paced publishing of `file` (1 ms between messages, so the fault lands in the middle of it); an
    /// acknowledgement missing for 1 s (not the default 5 s) sends the unacknowledged messages again.
    static func publisher(_ file: String, _ servers: String, _ extra: [String] = []) throws -> RunningProcess {
        try RunningProcess(CommandLineTool.path("entitystream"), [
            "replay", file, "--track-field", "MMSI", "--events", "observation", "--interval", "1",
            "--publish", "\(servers)/ais", "--create-stream", "AIS", "--publish-ack-wait", "1000"] + extra)
    }

    /// Everything in stream AIS at `url`, read by a fresh consumer until the stream has no more.
    func everything(_ url: String) async throws -> ProcessRunner.Result {
        try await CommandLineTool.run("entitystream", ["consume", "\(url)/AIS", "--from-start", "--events", "observation", "--until-caught-up"])
    }

    @Test("A broker killed and restarted (file storage) during ingestion loses nothing and stores nothing twice", .enabled(if: ready))
    func brokerRestart() async throws {
        var server = try await NATSServerProcess()
        defer { server.kill(); server.removeStorage() }
        let file = try Self.input()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let publisher = try Self.publisher(file, server.url)
        let first = await publisher.offPool { $0.readLines(Self.beforeTheFault) }
        #expect(first.count == Self.beforeTheFault)
        server = try await server.restarted()
        let rest = await publisher.offPool { $0.remainingOutput() }
        #expect(await publisher.offPool { $0.wait() } == 0)
        let summary = await publisher.offPool { NATSServerProcess.read($0, until: "stored,") }
        #expect(summary.contains("rejected"), "\(summary)")
        #expect(observationLines(rest).count == Self.published - Self.beforeTheFault)
        let stored = try await everything(server.url)
        #expect(observationLines(stored.standardOutput).count == Self.published, "\(stored.standardError)")
        let expected = try tracks(first.joined(separator: "\n") + "\n" + rest)
        #expect(expected.count == 14)
        #expect(try tracks(stored.standardOutput) == expected)
    }

    @Test("A three-node cluster with a replicated stream survives one node killed during ingestion", .enabled(if: ready))
    func clusterNodeKilled() async throws {
        let routes = try (0..<3).map { _ in try ClosedPort().port }
        let clients = try (0..<3).map { _ in try ClosedPort().port }
        // One after the other, each once it listens. (Started together they bid for the JetStream
        // leadership before their routes are up, and all wait out nats-server 2.9's election timeout, 4-9 s:
        // 16 and 29 s for the test where one after the other took 5 and 12 s.)
        var nodes: [NATSServerProcess] = []
        for index in 0..<3 {
            nodes.append(try await NATSServerProcess(port: clients[index], cluster: ("es", routes[index], routes.filter { $0 != routes[index] })))
        }
        defer { for node in nodes { node.kill(); node.removeStorage() } }
        let file = try Self.input()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let servers = "nats://" + clients.map { "127.0.0.1:\($0)" }.joined(separator: ",")
        // The stream is created once the cluster has a JetStream leader (the publisher retries until then).
        let publisher = try Self.publisher(file, servers, ["--stream-replicas", "3"])
        #expect(await publisher.offPool { $0.readLines(Self.beforeTheFault) }.count == Self.beforeTheFault)
        nodes[0].kill()
        let rest = await publisher.offPool { $0.remainingOutput() }
        let status = await publisher.offPool { $0.wait() }
        let summary = await publisher.offPool { NATSServerProcess.read($0, until: "stored,") }
        #expect(status == 0, "\(summary)")
        #expect(observationLines(rest).count == Self.published - Self.beforeTheFault)
        let survivors = "nats://" + clients.dropFirst().map { "127.0.0.1:\($0)" }.joined(separator: ",")
        let stored = try await everything(survivors)
        #expect(observationLines(stored.standardOutput).count == Self.published, "\(stored.standardError)")
    }
}

@Suite("Fleet-wide statistics across partitioned consumers through NATS request/reply", .bounded(.io))
struct FleetStatisticsTests {
    static let ais = SharedData.path(SharedData.ais)
    static var ready: Bool { SharedData.has(SharedData.ais) && NATSServerProcess.executable != nil }
    static let request = #"{"statistics":["count:SOG","sum:SOG","avg:SOG","min:SOG","max:SOG","stddev:SOG","var:COG"],"groupBy":["VesselName"],"of":"observations","orderBy":["VesselName"]}"#

    /// The records of a fleet answer: group name → statistic → value.
    func records(_ output: String) throws -> [String: [String: Double]] {
        var records: [String: [String: Double]] = [:]
        for line in output.split(separator: "\n") where line.contains("\"phase\":\"result\"") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let group = try #require((object["group"] as? [String: Any])?["VesselName"] as? String)
            let statistics = try #require(object["statistics"] as? [String: Any])
            records[group] = statistics.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        return records
    }

    @Test("Statistics over four partitions equal the same query on one process; a member that does not answer is named", .enabled(if: ready))
    func fourPartitionsEqualOne() async throws {
        let stream = try await SharedAISStream.get()
        let server = stream.server
        #expect(stream.published.status == 0, "\(stream.published.standardError)")
        // How many observations each partition holds, from the server's partition function.
        var expectedCounts = [0, 0, 0, 0]
        for (track, lines) in stream.tracks {
            expectedCounts[TrackPartition.partition(serviceToken: SubjectToken.encode("AIS_MarineCadastre_SelectedVessels_CustomDataSource"),
                                                    trackToken: SubjectToken.encode(track), count: 4)] += lines.count
        }
        #expect(expectedCounts.reduce(0, +) == 8400)
        // Groups of this test's own: other tests' consumers of the shared stream answer for group AIS.
        var members: [RunningProcess] = []
        for index in 0..<4 {
            let member = try RunningProcess(CommandLineTool.path("entitystream"), [
                "consume", "\(server.url)/AIS", "--durable", "fleet-p\(index)", "--partition", "\(index)/4", "--from-start",
                "--events", "observation", "--fleet-group", "fleet4"])
            // Each member has stored and written its whole share before the question.
            let count = expectedCounts[index]
            #expect(await member.offPool { $0.readLines(count) }.count == count)
            members.append(member)
        }
        let whole = try RunningProcess(CommandLineTool.path("entitystream"), [
            "consume", "\(server.url)/AIS", "--durable", "fleet-whole", "--from-start", "--events", "observation", "--fleet-group", "fleet1"])
        #expect(await whole.offPool { $0.readLines(8400) }.count == 8400)
        defer { for process in members + [whole] { process.signal(SIGKILL); _ = process.wait() } }

        let fleet = try await CommandLineTool.run("entitystream", ["fleet", "\(server.url)/fleet4", Self.request, "--expect", "4", "--wait", "20"])
        let single = try await CommandLineTool.run("entitystream", ["fleet", "\(server.url)/fleet1", Self.request, "--expect", "1", "--wait", "20"])
        #expect(fleet.status == 0 && single.status == 0, "\(fleet.standardError) \(single.standardError)")
        #expect(fleet.standardOutput.contains("\"complete\":true") && fleet.standardOutput.contains("\"rows\":8400"))
        let merged = try records(fleet.standardOutput)
        let one = try records(single.standardOutput)
        #expect(merged.count == 14 && one.count == 14)
        for (group, statistics) in one {
            let other = try #require(merged[group])
            for name in ["COUNT_SOG", "SUM_SOG", "MIN_SOG", "MAX_SOG"] { #expect(other[name] == statistics[name], "\(group) \(name)") }
            for name in ["AVG_SOG", "STDDEV_SOG", "VAR_COG"] {
                let a = try #require(other[name]), b = try #require(statistics[name])
                #expect(abs(a - b) <= 1e-12 * max(1, abs(b)), "\(group) \(name): \(a) vs \(b)")
            }
        }

        // Partition 3 stops answering: the answer says so and is not passed off as complete.
        members[3].signal(SIGKILL)
        _ = members[3].wait()
        let partial = try await CommandLineTool.run("entitystream", ["fleet", "\(server.url)/fleet4", Self.request, "--expect", "4", "--wait", "2"])
        #expect(partial.status == 1)
        #expect(partial.standardOutput.contains("\"missing\":[\"3/4\"]") && partial.standardOutput.contains("\"complete\":false"))
        #expect(partial.standardError.contains("3/4"))
    }
}
