import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamHotSpots
import EntityStreamLocking
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles
import EntityStreamAnalyses

private func analyses(_ events: [StreamEvent]) -> [AnalysisEvent] {
    events.compactMap { if case .analysis(let analysis) = $0.payload { return analysis }; return nil }
}

private func finished(_ events: [StreamEvent]) -> Bool { analyses(events).contains { $0.phase.isFinal } }

/// The statuses of the job's status lines, consecutive repeats folded.
private func statuses(_ events: [StreamEvent]) -> [String] {
    var result: [String] = []
    for line in analyses(events) where line.phase == .progress && line.members["fraction"] == nil {
        if let status = line.members["jobStatus"]?.stringValue, result.last != status { result.append(status) }
    }
    return result
}

/// A runtime without a store, publishing into `published`.
private func startRuntime(_ published: PublishedEvents, token: String? = nil) -> (AnalysisRuntime, Task<Void, Never>) {
    var remote = RemoteServiceOptions(token: token)
    remote.http.timeout = .seconds(10)
    let runtime = AnalysisRuntime(environment: AnalysisEnvironment(clock: SystemClock(), remote: remote)) { published.append($0) }
    return (runtime, Task { await runtime.run() })
}

private let day: Int64 = 86_400_000
/// 1998-01-01T00:00:00Z (883612800 s).
private let january1998: Int64 = 883_612_800_000

/// `count` incidents in Oregon State Plane feet over 60 days of 1998, a third of them clustered; the test's own generator.
private func incidents(_ count: Int) -> [(x: Double, y: Double, t: Int64)] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    return (0..<count).map { i in
        let t = january1998 + Int64(i % 60) * day + Int64(i % 24) * 3_600_000
        if i % 3 == 0 { return (7_645_000 + next() * 1_500, 680_000 + next() * 1_500, t) }
        return (7_630_000 + next() * 30_000, 670_000 + next() * 30_000, t)
    }
}

private func writeIncidents(_ rows: [(x: Double, y: Double, t: Int64)]) throws -> String {
    let lines = ["occurred,east,north"] + rows.map { "\($0.t),\($0.x),\($0.y)" }
    return try writeTemporary(lines)
}

private let columns = FeatureColumnMapping(x: "east", y: "north", time: "occurred", wkid: 2913)

private func startGP(_ path: String, delay: Int64, configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> SimulatorServer {
    var configuration = SimulatorConfiguration()
    configuration.port = 0
    configuration.hotSpotServices = [HotSpotServiceSpecification(name: "Calls", path: path, options: FeatureLoadOptions(mapping: columns))]
    configuration.jobDelayMilliseconds = delay
    configure(&configuration)
    return try await SimulatorServer.start(configuration)
}

/// The client's error from `body`, nil when it succeeded.
private func failure(_ body: () async throws -> Void) async -> GeoprocessingError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? GeoprocessingError
    }
}

/// Whether `seen` lists distinct elements of `timeline` in its order.
private func isOrderedSubsequence(_ seen: [String], of timeline: [String]) -> Bool {
    var position = timeline.startIndex
    for status in seen {
        guard let found = timeline[position...].firstIndex(of: status) else { return false }
        position = found + 1
    }
    return true
}

private let quickPolling = GPJobPollPolicy(initialInterval: 20, maximumInterval: 40)

@Suite("Hot-spot geoprocessing: the simulator's GPServer through the client", .bounded(.io))
struct GeoprocessingTests {
    /// The job walks through submitted, waiting, executing and succeeded; its messages say how many incidents the Query
    /// selected; its features equal the local engine's on the same file and query; the result map service answers queries.
    @Test func statusesMessagesAndResults() async throws {
        let rows = incidents(600)
        let path = try writeIncidents(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startGP(path, delay: 150)
        let from = january1998 + 5 * day, to = january1998 + 50 * day
        let query = try GPDateRangeQuery.make(from: from, to: to)
        let published = PublishedEvents()
        let (runtime, running) = startRuntime(published)
        try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: query, policy: quickPolling), id: .int(1), command: "hotspots")
        let events = await published.wait(until: finished)
        // The client reports the statuses it polled: in the job's order, from submitted to succeeded (a
        // poll delayed on a loaded machine may miss a short-lived one in between).
        let timeline = ["esriJobSubmitted", "esriJobWaiting", "esriJobExecuting", "esriJobSucceeded"]
        let seen = statuses(events)
        #expect(seen.first == "esriJobSubmitted" && seen.last == "esriJobSucceeded", "\(seen)")
        #expect(isOrderedSubsequence(seen, of: timeline), "\(seen)")
        let lines = analyses(events)
        #expect(lines.last?.phase == .summary, "\(lines.last?.members ?? JSONObject())")
        let selected = rows.filter { $0.t > from && $0.t < to }.count
        let messages = lines.compactMap { $0.members["messages"]?.arrayValue }.flatMap { $0 }.compactMap { $0["description"]?.stringValue }
        #expect(messages.contains("Query selected \(selected) of 600 incidents."))
        #expect(messages.contains { $0.contains("measured in foot") })

        // The local engine on the same data and query, measured in the data's feet, written in env:outSR 102100.
        let table = try FeatureFile.load(path: path, options: FeatureLoadOptions(mapping: columns))
        let selection = try HotSpotTableSelection.select(from: table, whereClause: query)
        let result = try HotSpotAnalysis().run(selection.input)
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { [selection] in selection.sourceID($0) }, wkid: 2913, outSR: 102100)
        #expect(output.wkid == 3857)
        let remote = lines.filter { $0.phase == .result }.compactMap(\.feature)
        #expect(remote.count == output.count && output.count > 30)
        #expect(remote == (0..<output.count).map(output.feature))
        let summary = try #require(lines.last?.members)
        #expect(summary["features"] == .int(Int64(output.count)) && summary["hotSpots"] == .int(Int64(result.summary.bins.hot)))

        // The result map service: a layer of the same features, described as they are served.
        let jobID = try #require(summary["jobId"]?.stringValue)
        let client = try FeatureLayerClient(layerURL: "\(server.httpBase)/arcgis/rest/services/Calls/MapServer/jobs/\(jobID)/0")
        let hot = try await client.count(FeatureQuery(whereClause: "Gi_Bin = 3"))
        #expect(hot == result.summary.bins[3])
        #expect(try await client.description().geometryType == output.geometryType)
        await runtime.close()
        await running.value
        await server.shutdown()
    }

    /// env:processSR measures the distances in that reference (here WGS84: metres on the ellipsoid, said in the
    /// messages) and env:outSR projects the results: the job's features equal the local engine's run with the same
    /// processing and output references; a reference PROJ does not know is refused at submitJob, by name.
    @Test func processingAndOutputReferences() async throws {
        let rows = incidents(450)
        let path = try writeIncidents(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startGP(path, delay: 20)
        let published = PublishedEvents()
        let (runtime, running) = startRuntime(published)
        try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: nil, outSR: 2913, processSR: 4326, policy: quickPolling),
                                id: .int(1), command: "hotspots")
        let lines = analyses(await published.wait(until: finished))
        #expect(lines.last?.phase == .summary, "\(lines.last?.members ?? JSONObject())")
        let messages = lines.compactMap { $0.members["messages"]?.arrayValue }.flatMap { $0 }.compactMap { $0["description"]?.stringValue }
        #expect(messages.contains { $0.contains("measured in metres (processing spatial reference wkid 4326)") }, "\(messages)")

        let table = try FeatureFile.load(path: path, options: FeatureLoadOptions(mapping: columns))
        let selection = try HotSpotTableSelection.select(from: table, processing: 4326)
        #expect(selection.reading.coordinates == .geographic && selection.reading.processingWKID == 4326)
        let result = try HotSpotAnalysis().run(selection.input)
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { [selection] in selection.sourceID($0) }, wkid: 4326, outSR: 2913)
        let remote = lines.filter { $0.phase == .result }.compactMap(\.feature)
        #expect(remote.count == output.count && output.count > 10)
        #expect(remote == (0..<output.count).map(output.feature))
        guard case .polygon(_, let wkid)? = remote.first?.geometry else { Issue.record("not a polygon"); return }
        #expect(wkid == 2913)

        let client = try GeoprocessingClient(taskURL: server.hotSpotTaskURL("Calls"))
        let refusal = await failure { _ = try await client.submitJob([("env:processSR", "99999")]) }
        #expect(refusal.map { "\($0)" }?.contains("unknown spatial reference wkid 99999") == true, "\(String(describing: refusal))")
        await runtime.close()
        await running.value
        await server.shutdown()
    }

    /// Cancelling the analysis while the job executes cancels it on the server: cancelling, cancelled, then the cancelled line.
    @Test func cancelMidJob() async throws {
        let path = try writeIncidents(incidents(300))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The job would execute for 10 minutes, far beyond the time limit: only the cancel ends it, however
        // loaded the machine. The other statuses last 100 ms.
        let server = try await startGP(path, delay: 100) { $0.jobExecutionMilliseconds = 600_000 }
        let published = PublishedEvents()
        let (runtime, running) = startRuntime(published)
        try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: nil, policy: quickPolling), id: .string("c"), command: "hotspots")
        let executing = await published.wait { statuses($0).contains("esriJobExecuting") || finished($0) }
        #expect(statuses(executing).last == "esriJobExecuting")
        #expect(await runtime.cancel(.string("c")) == .cancelling)
        let events = await published.wait(until: finished)
        #expect(analyses(events).last?.phase == .cancelled)
        #expect(Array(statuses(events).suffix(3)) == ["esriJobExecuting", "esriJobCancelling", "esriJobCancelled"])
        let jobID = try #require(analyses(events).first { $0.members["jobId"] != nil }?.members["jobId"]?.stringValue)
        let info = try await GeoprocessingClient(taskURL: server.hotSpotTaskURL("Calls")).job(jobID)
        #expect(info.status == .cancelled)
        #expect(!analyses(events).contains { $0.phase == .result })
        await runtime.close()
        await running.value
        await server.shutdown()
    }

    /// A Query that leaves too few incidents fails the job on the server: esriJobFailed, its error message, and the failed line.
    @Test func failingJob() async throws {
        let path = try writeIncidents(incidents(300))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startGP(path, delay: 0)
        let published = PublishedEvents()
        let (runtime, running) = startRuntime(published)
        let query = try GPDateRangeQuery.make(from: january1998, to: january1998 + 2 * day)
        try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: query, policy: quickPolling), id: .int(2), command: "hotspots")
        let events = await published.wait(until: finished)
        #expect(statuses(events).last == "esriJobFailed")
        let failure = try #require(analyses(events).last)
        #expect(failure.phase == .failed)
        #expect(failure.members["error"]?.stringValue?.contains("esriJobFailed") == true)
        #expect(failure.members["error"]?.stringValue?.contains("at least 60 incidents") == true, "\(failure.members)")
        // A where clause naming an unknown field fails the job the same way.
        try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: "gust > 3", policy: quickPolling), id: .int(3), command: "hotspots")
        let second = await published.wait { analyses($0).filter { $0.phase.isFinal }.count == 2 }
        #expect(analyses(second).last?.members["error"]?.stringValue?.contains("gust") == true)
        await runtime.close()
        await running.value
        await server.shutdown()
    }

    /// An unreachable service is a failed status (with its source) and a readable failure.
    @Test func unreachableService() async throws {
        let published = PublishedEvents()
        let (runtime, running) = startRuntime(published)
        try await runtime.start(RemoteHotSpotJob(taskURL: "http://127.0.0.1:9/arcgis/rest/services/X/GPServer/Task", query: nil), id: .int(1), command: "hotspots")
        let events = await published.wait(until: finished)
        let failed = events.compactMap { event -> ConnectionStatusChange? in if case .status(let s) = event.payload { return s }; return nil }
            .first { $0.status == .failed }
        #expect(failed?.source == "gp http://127.0.0.1:9/arcgis/rest/services/X/GPServer/Task")
        #expect(analyses(events).last?.phase == .failed)
        #expect(analyses(events).last?.members["error"]?.stringValue?.contains("cannot reach") == true)
        await runtime.close()
        await running.value
    }

    /// A service that requires a token refuses a job without one (saying so) and runs it with it; no line ever carries the token.
    @Test func tokens() async throws {
        let path = try writeIncidents(incidents(300))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let token = "gp-secret-7f3a"
        let server = try await startGP(path, delay: 0) { $0.token = token }
        for (id, given) in [(1, nil), (2, "wrong-token-1"), (3, token)] as [(Int, String?)] {
            let published = PublishedEvents()
            let (runtime, running) = startRuntime(published, token: given)
            try await runtime.start(RemoteHotSpotJob(taskURL: server.hotSpotTaskURL("Calls"), query: nil, policy: quickPolling), id: .int(Int64(id)), command: "hotspots")
            let events = await published.wait(until: finished)
            let last = try #require(analyses(events).last)
            switch id {
            case 1: #expect(last.phase == .failed && last.members["error"]?.stringValue?.contains("requires a token") == true)
            case 2: #expect(last.phase == .failed && last.members["error"]?.stringValue?.contains("498") == true)
            default: #expect(last.phase == .summary)
            }
            var writer = JSONWriter()
            var formatter = JSONLinesFormatter(format: .esri, schema: Schema(fields: []))
            for event in events { formatter.append(event, to: &writer) }
            #expect(!String(decoding: writer.bytes, as: UTF8.self).contains(token))
            await runtime.close()
            await running.value
        }
        await server.shutdown()
    }

    /// The task describes its parameters; a bad parameter is a 400 naming it; an unknown job or task is a 404; TLS works as for layers.
    @Test func taskDescriptionAndErrors() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let path = try writeIncidents(incidents(100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startGP(path, delay: 0) {
            $0.tls = certificate.tlsFiles
        }
        #expect(server.hotSpotTaskURL("Calls").hasPrefix("https://"))
        var options = GeoprocessingClientOptions()
        options.http.allowSelfSignedCertificates = true
        let client = try GeoprocessingClient(taskURL: server.hotSpotTaskURL("Calls"), options: options)
        let task = try await client.taskDescription()
        #expect(task.name == "911 Calls Hotspot" && task.parameter(named: "Query")?.dataType == "GPString")
        #expect(task.parameter(named: "Output_Features")?.direction == .output)
        let badParameter = await failure { _ = try await client.submitJob([("Cell_Size", "-1")]) }
        #expect(badParameter?.description.contains("Cell_Size") == true && badParameter?.isReachabilityFailure == false)
        let unknownJob = await failure { _ = try await client.job("jnothere") }
        #expect(unknownJob?.description.contains("jnothere") == true)
        let wrongTask = try GeoprocessingClient(taskURL: "\(server.httpBase)/arcgis/rest/services/Calls/GPServer/Other", options: options)
        let unknownTask = await failure { _ = try await wrongTask.taskDescription() }
        #expect(unknownTask?.description.contains("911 Calls Hotspot") == true)
        let notATask = #expect(throws: GeoprocessingError.notAGeoprocessingTask(redactedURL: "http://127.0.0.1/arcgis/rest/services/X/MapServer/0")) {
            try GeoprocessingClient(taskURL: "http://127.0.0.1/arcgis/rest/services/X/MapServer/0?token=SECRET")
        }
        #expect(notATask?.description == "invalid geoprocessing task URL: 'http://127.0.0.1/arcgis/rest/services/X/MapServer/0' is not a geoprocessing task (…/GPServer/<task>)")
        let notHTTP = #expect(throws: GeoprocessingError.self) { try GeoprocessingClient(taskURL: "ws://127.0.0.1/arcgis/rest/services/X/GPServer/T") }
        guard case .invalidURL(.invalidURL(.invalidURL(_, reason: "expected an http:// or https:// URL")))? = notHTTP else {
            Issue.record("\(String(describing: notHTTP))"); return
        }
        #expect(notHTTP?.description == "invalid geoprocessing task URL: invalid URL 'ws://127.0.0.1/arcgis/rest/services/X/GPServer/T': expected an http:// or https:// URL")
        await server.shutdown()
    }
}
