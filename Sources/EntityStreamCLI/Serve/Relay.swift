import EntityStream
import EntityStreamCore
import EntityStreamLocking
import StreamSimulator
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// `serve`'s server beside a session: the simulator's server with one live
/// service over the session's pipeline — its observations fanned out to
/// WebSocket subscribers, its store as layers and a hot-spot task, its
/// source's state in `/status`, the map page at `/`.
///
/// ``start(pipeline:source:)`` subscribes to the bus (observations, status
/// changes, and the count of what its own queue dropped) and listens;
/// ``run()`` hands every batch of live observations (not those primed from
/// an archive) to the stream's publisher, which never waits for a
/// subscriber; the bus subscription drops its oldest events when the
/// fan-out falls behind (counted, reported in `/status`), so the relay never
/// slows the store either. ``stop()`` shuts the server down (subscribers get
/// 1001) and ends ``run()``.
final class Relay: SessionCompanion {
    let configuration: SimulatorConfiguration
    let stream: LiveStream
    private let state = LockedState<Running?>(nil)

    private struct Running {
        let server: SimulatorServer
        let subscriber: Subscriber
        let pipeline: StreamPipeline
        let source: any SessionSource
    }

    /// Events the fan-out may hold before its oldest are dropped (and counted).
    static let queueCapacity = 65_536
    static let queueBytes = 16 << 20

    /// `configuration`: where and how to serve (its live services are set here).
    init(name: String, configuration: SimulatorConfiguration) {
        self.configuration = configuration
        stream = LiveStream(name: name, info: LiveServiceInfo(description: "Relay of \(name)", schema: Schema(fields: []), spatialReference: 4326))
    }

    func start(pipeline: StreamPipeline, source: any SessionSource) async throws {
        let subscriber = Subscriber(name: "relay", filter: EventFilter(kinds: [.observation, .status, .dropped]), capacity: Self.queueCapacity,
                                    byteLimit: Self.queueBytes, policy: .dropOldest, clock: pipeline.clock)
        await pipeline.bus.subscribe(subscriber)
        var configuration = self.configuration
        let target = source.controlTarget
        let store = LiveStore {
            let snapshot = await pipeline.store.snapshot()
            return (snapshot.contents, snapshot.asOf)
        }
        configuration.liveServices = [LiveServiceSpecification(stream: stream, store: store, sourceStatus: { await target.sourceStatus().json })]
        configuration.servesMapPage = true
        let server: SimulatorServer
        do { server = try await SimulatorServer.start(configuration) } catch {
            await pipeline.bus.unsubscribe(subscriber)
            throw RelayError.server(error)
        }
        state.withLock { $0 = Running(server: server, subscriber: subscriber, pipeline: pipeline, source: source) }
        await refresh(pipeline: pipeline, source: source)
        let name = stream.name
        configuration.log("listening on \(server.listenAddress) port \(server.port)")
        configuration.log("stream service: \(server.serviceURL(name)) (WebSocket \(server.httpBase.replacingFirst("http", with: "ws"))/arcgis/ws/services/\(name)/StreamServer/subscribe)")
        configuration.log("latest observations: \(server.layerURL("\(name)_Latest", kind: .featureServer))")
        configuration.log("track history: \(server.layerURL("\(name)_Tracks", kind: .featureServer))")
        configuration.log("hot spots: \(server.hotSpotTaskURL(name))")
        configuration.log("map: \(server.httpBase)/   status: \(server.httpBase)/status")
    }

    func run() async {
        guard let running = state.withLock({ $0 }) else { return }
        var publisher = stream.makePublisher()
        publisher.log = configuration.log
        // What the stream was last told, not the pipeline's schema now: a source that described itself between
        // start()'s refresh and here (a replay does at once) must still be refreshed, with no status event to say so.
        var schema = stream.info.schema
        var observations: [Observation] = []
        while let batch = await running.subscriber.next() {
            var refreshes = false
            observations.removeAll(keepingCapacity: true)
            for event in batch {
                switch event.kind {
                case .observation:
                    if !event.primed, let observation = event.observation { observations.append(observation) }
                case .status:
                    refreshes = true
                case .dropped:
                    if case .dropped(let count, _) = event.payload { stream.noteDroppedBeforeFanOut(count) }
                default:
                    break
                }
            }
            let current = running.pipeline.schema.schema
            if refreshes || current != schema {
                schema = current
                await refresh(pipeline: running.pipeline, source: running.source)
            }
            // A large batch (the fan-out fell behind for a moment: a burst) goes out in slices. When a
            // subscriber that keeps up has more than half its queue waiting, the server's writing thread
            // has a turn before the next slice, so it drains the burst instead of overflowing; one that
            // does not read never makes the relay wait (its socket takes nothing, so it is not waited for).
            var start = 0
            while start < observations.count {
                let end = min(start + Self.slice, observations.count)
                let behind = end - start == observations.count ? publisher.publish(observations) : publisher.publish(Array(observations[start..<end]))
                start = end
                if behind { await stream.writerTurn() }
            }
        }
    }

    /// Observations offered to the subscribers at once in a burst (about one 64 KiB chunk of features).
    static let slice = 128

    func stop() async {
        guard let running = state.withLock({ $0 }) else { return }
        await running.server.shutdown()
        running.subscriber.finish()
    }

    /// Tells the stream what the source now says: the pipeline's schema,
    /// the source's description text and spatial reference.
    private func refresh(pipeline: StreamPipeline, source: any SessionSource) async {
        let facts = await source.streamFacts()
        let schema = pipeline.schema.schema
        let current = stream.info
        let info = LiveServiceInfo(description: facts.description ?? current.description, schema: schema,
                                   spatialReference: facts.spatialReference ?? current.spatialReference)
        stream.update(info)
        if !current.isKnown && info.isKnown {
            configuration.log("\(stream.name): the source described its stream (\(schema.fields.count) fields, wkid \(info.spatialReference)); serving it")
        }
    }
}

/// Why `serve` could not run, by what failed.
enum RelayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not start (the address, the port, the TLS files, a name).
    case server(SimulatorError)

    var description: String {
        switch self {
        case .server(let error): return "serve: \(error)"
        }
    }
}

private extension String {
    func replacingFirst(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
