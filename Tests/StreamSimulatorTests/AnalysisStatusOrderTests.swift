import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamLocking
import StreamSimulator
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamAnalyses

/// What a job published, as `status <status>` and `<phase>` words, in order.
private func timeline(_ events: [StreamEvent]) -> [String] {
    events.compactMap { event in
        switch event.payload {
        case .status(let change): return "status \(change.status.rawValue) \(change.source ?? "-")"
        case .analysis(let analysis): return analysis.phase.rawValue
        default: return nil
        }
    }
}

@Suite("Analyses: a remote service's status lines in order with the results", .bounded(.io))
struct AnalysisStatusOrderTests {
    /// A layer query's status lines come before the results they precede, with the layer as their source, and none after the summary.
    @Test func layerQueryStatusesPrecedeItsResults() async throws {
        let path = try writeTemporary(["id,lon,lat", "1,0,0", "2,1,1", "3,2,2"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "Points", path: path)]) { $0.maxRecordCount = 2 }
        let url = server.layerURL("Points")
        let published = PublishedEvents()
        let runtime = AnalysisRuntime(environment: AnalysisEnvironment(clock: SystemClock())) { published.append($0) }
        let running = Task { await runtime.run() }
        try await runtime.start(LayerQueryJob(layerURL: url, query: FeatureQuery()), id: .int(1), command: "query")
        let events = await published.wait { events in events.contains { if case .analysis(let a) = $0.payload { return a.phase.isFinal }; return false } }
        let source = "layer \(url)"
        #expect(timeline(events) == ["accepted", "status connecting \(source)", "status connected \(source)",
                                     "result", "result", "progress", "result", "summary"])
        await runtime.close()
        await running.value
        await server.shutdown()
    }

    /// An unreachable layer: connecting, then failed, both before the job's failed line.
    @Test func unreachableLayerFailsAfterItsStatus() async throws {
        let published = PublishedEvents()
        let runtime = AnalysisRuntime(environment: AnalysisEnvironment(clock: SystemClock())) { published.append($0) }
        let running = Task { await runtime.run() }
        let url = "http://127.0.0.1:9/arcgis/rest/services/X/MapServer/0"
        try await runtime.start(LayerQueryJob(layerURL: url, query: FeatureQuery()), id: .int(1), command: "query")
        let events = await published.wait { events in events.contains { if case .analysis(let a) = $0.payload { return a.phase.isFinal }; return false } }
        #expect(timeline(events) == ["accepted", "status connecting layer \(url)", "status failed layer \(url)", "failed"])
        await runtime.close()
        await running.value
    }

    /// A geoprocessing client's status sequence sees each change after its relay has had it: connecting, then failed.
    @Test func geoprocessingClientRelaysThenYields() async throws {
        let relayed = LockedState<[ConnectionStatus]>([])
        var options = GeoprocessingClientOptions()
        options.onStatus = { change in relayed.withLock { $0.append(change.status) } }
        let client = try GeoprocessingClient(taskURL: "http://127.0.0.1:9/arcgis/rest/services/X/GPServer/Task", options: options)
        var updates = client.statusUpdates().makeAsyncIterator()
        await #expect(throws: GeoprocessingError.self) { _ = try await client.taskDescription() }
        #expect(relayed.withLock { $0 } == [.connecting, .failed])
        #expect(await updates.next()?.status == .connecting)
        #expect(await updates.next()?.status == .failed)
        #expect(await client.status == .failed)
    }
}
