import EntityStream
import EntityStreamCore
import EntityStreamModel

/// A session as the command line wires one, for tests of control commands
/// and analysis jobs: a pipeline on a ``ManualClock``, a subscriber of
/// `analysis` and `response` events, an ``AnalysisRuntime`` with the store,
/// and the standard ``ControlCommandHandler``. Tests ingest observations,
/// send command lines or start jobs, and get back the events they produced
/// (awaited, never timed). Call ``close()`` at the end.
public struct AnalysisHarness: Sendable {
    /// A control target for a store-only session (filters are refused).
    struct Target: ControlTarget {
        func setFilter(_ filter: StreamFilter) async -> FilterOutcome {
            FilterOutcome(result: .rejected, requested: filter, error: "not in this harness")
        }
        func sourceStatus() async -> any SourceStatus { FixedSourceStatus(.connection(.connected)) }
    }

    public let clock: ManualClock
    public let pipeline: StreamPipeline
    public let subscriber: Subscriber
    public let runtime: AnalysisRuntime
    public let handler: ControlCommandHandler
    let running: Task<Void, Never>

    /// A session whose store has `schema`, purging by `options` (nothing by default).
    public init(schema: Schema, options: PurgeOptions = PurgeOptions(maximumDuration: 0, maximumObservations: 0),
                remote: RemoteServiceOptions = RemoteServiceOptions()) async {
        let clock = ManualClock()
        self.clock = clock
        pipeline = StreamPipeline(purgeOptions: options, clock: clock)
        subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.analysis, .response]), clock: clock)
        await pipeline.bus.subscribe(subscriber)
        let environment = AnalysisEnvironment(store: pipeline.store, streamStatus: { .connection(.connected) }, clock: clock, remote: remote)
        runtime = AnalysisRuntime(environment: environment) { [pipeline] in await pipeline.publish($0) }
        let runtime = self.runtime
        running = Task { await runtime.run() }
        handler = ControlCommandHandler(session: ControlSession(pipeline: pipeline, target: Target(), runtime: runtime))
        await pipeline.schemaChanged(schema)
    }

    /// Hands `observations` to the pipeline (stamped now by the manual clock
    /// when they carry no receive time) and waits until the store has them.
    public func ingest(_ observations: [Observation]) async {
        await pipeline.receive(observations.map { .observation($0) })
        await settle()
    }

    /// Waits until everything handed to the pipeline so far has been
    /// processed (a marker published after it comes out of the bus).
    public func settle() async {
        await pipeline.publish(StreamEvent(time: 0, payload: .response(ControlResponse(id: .string("settle"), command: "settle", ok: true))))
        while let batch = await subscriber.next() {
            if batch.contains(where: { if case .response(let r) = $0.payload { return r.id == .string("settle") }; return false }) { return }
        }
    }

    /// Sends a command line and returns its events up to the final analysis
    /// event, or up to its `response`.
    public func command(_ line: String) async -> [StreamEvent] {
        await command(bytes: Array(line.utf8))
    }

    /// The same for a line given as bytes (which need not be UTF-8).
    public func command(bytes: [UInt8]) async -> [StreamEvent] {
        await settle()
        await handler.handle(line: bytes)
        return await collect()
    }

    /// Starts `job` directly (as a one-shot analysis does) and returns its
    /// analysis events up to the final one.
    public func run(_ job: any AnalysisJob, id: JSONValue = .string("job"), command: String = "statistics") async throws -> [AnalysisEvent] {
        await settle()
        try await runtime.start(job, id: id, command: command)
        return Self.analyses(await collect())
    }

    private func collect() async -> [StreamEvent] {
        var events: [StreamEvent] = []
        while let batch = await subscriber.next() {
            events += batch
            if events.contains(where: { event in
                if case .analysis(let analysis) = event.payload { return analysis.phase.isFinal }
                if case .response(let response) = event.payload { return response.id != .string("settle") }
                return false
            }) { break }
        }
        return events.filter { if case .response(let r) = $0.payload { return r.id != .string("settle") }; return true }
    }

    /// The analysis events among `events`.
    public static func analyses(_ events: [StreamEvent]) -> [AnalysisEvent] {
        events.compactMap { event in
            if case .analysis(let analysis) = event.payload { return analysis }
            return nil
        }
    }

    /// The response among `events`, if any.
    public static func response(_ events: [StreamEvent]) -> ControlResponse? {
        for event in events { if case .response(let response) = event.payload { return response } }
        return nil
    }

    public func close() async {
        await runtime.close()
        await running.value
        await pipeline.close()
    }
}
