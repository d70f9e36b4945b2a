import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamLocking

/// The server's live services (a relay's): their store layers and hot-spot
/// task, `/status`, the map page at `/`, and the checks their subscribers pass.
extension SimulatorServer.SharedState {
    /// The live services of `configuration` by name, and their store layers
    /// by layer name; each service with a store also gets its hot-spot task
    /// in `hotSpots`. Throws when a name is taken (`taken`: every other
    /// service and layer name) or given twice.
    static func liveServices(_ configuration: SimulatorConfiguration, taken: Set<String>,
                             hotSpots: inout [String: SimulatedHotSpotService]) throws(SimulatorError)
        -> ([String: LiveServiceSpecification], [String: any LayerSource]) {
        var live: [String: LiveServiceSpecification] = [:]
        var layers: [String: any LayerSource] = [:]
        var used = taken
        func claim(_ name: String, _ what: String) throws(SimulatorError) {
            guard used.insert(name).inserted else {
                throw .liveNameTaken(name, role: what)
            }
        }
        for specification in configuration.liveServices {
            let name = specification.name
            try claim(name, "the live service")
            live[name] = specification
            guard let store = specification.store else { continue }
            try claim(specification.latestLayerName, "its latest-observation layer")
            try claim(specification.tracksLayerName, "its history layer")
            let settings = StoreLayerSettings(store: store, stream: specification.stream, maxRecordCount: configuration.maxRecordCount,
                                              supportsPagination: configuration.layerPagination, statistics: configuration.statisticsEngine)
            let tracks = StoreTracksLayer(name: specification.tracksLayerName, settings: settings)
            layers[specification.latestLayerName] = StoreLatestLayer(name: specification.latestLayerName, settings: settings)
            layers[specification.tracksLayerName] = tracks
            let task = HotSpotTask(serviceName: name, incidents: .live({ () throws(SimulatorError) -> FeatureTable in
                do throws(FeatureQueryError) { return try await tracks.layer(answering: FeatureQuery()).table } catch { throw .liveTracks(error) }
            }), describing: "Hot spots (Getis-Ord Gi*) of the observations the live store of \(name) retains when the job starts, selected by Query (\"DATE\" is their time).")
            hotSpots[name] = SimulatedHotSpotService(name: name, task: task,
                                                     jobs: GPJobBoard(task: task, delay: configuration.jobDelayMilliseconds,
                                                                      execution: configuration.jobExecutionMilliseconds,
                                                                      maxRecordCount: configuration.maxRecordCount, log: configuration.log))
        }
        return (live, layers)
    }
}

extension SimulatorServer {
    /// `GET /` (the map page) and `GET /status`, when the server has live
    /// services; nil for every other path.
    static func liveRoute(_ request: HTTPServerRequest, parts: [String], state: SharedState) async -> HTTPServerResponse? {
        guard let first = state.configuration.liveServices.first else { return nil }
        if parts.isEmpty, state.configuration.servesMapPage {
            let headers: HTTPHeaders = ["Content-Security-Policy": MapPage.contentSecurityPolicy, "Cache-Control": "no-store"]
            return HTTPServerResponse(status: 200, contentType: "text/html; charset=utf-8", headers: headers, text: MapPage.html(for: first))
        }
        guard parts == ["status"] else { return nil }
        if let refusal = tokenRefusal(request, state: state) { return refusal }
        return HTTPServerResponse(body: await status(state))
    }

    /// `/status`: for each live service, its source, its store's counts,
    /// its stream's totals, every subscriber's counts and the latest
    /// succeeded hot-spot job; then the slow-client policy and the limits.
    static func status(_ state: SharedState) async -> [UInt8] {
        var services: [JSONValue] = []
        for specification in state.configuration.liveServices {
            var object = JSONObject([("name", .string(specification.name))])
            object.append(key: "source", value: .object(await specification.sourceStatus()))
            if let store = specification.store {
                let (contents, asOf) = await store.snapshot()
                object.append(key: "store", value: .object(JSONObject([
                    ("entities", .int(Int64(contents.entityCount))), ("observations", .int(Int64(contents.observationCount))),
                    ("asOfEpoch", .int(asOf)),
                ])))
            }
            let summary = specification.stream.summary
            object.append(key: "stream", value: .object(JSONObject([
                ("published", .int(summary.published)), ("droppedBeforeFanOut", .int(Int64(summary.droppedBeforeFanOut))),
                ("clients", .int(Int64(summary.clients))), ("departedClients", .int(Int64(summary.departedClients))),
                ("departedSent", .int(Int64(summary.departedSent))), ("departedDropped", .int(Int64(summary.departedDropped))),
            ])))
            object.append(key: "clients", value: .array(specification.stream.clients.map { client in
                var filter = JSONWriter(capacity: 128)
                JSONLinesFormatter.appendFilter(client.filter, to: &filter)
                return .object(JSONObject([
                    ("id", .int(Int64(client.id))), ("joinedAt", .int(client.joinedAt)), ("offered", .int(client.offered)),
                    ("sent", .int(Int64(client.sent))), ("dropped", .int(Int64(client.dropped))), ("queuedBytes", .int(Int64(client.queuedBytes))),
                    ("filter", (try? JSONParser.parse(filter.bytes)) ?? .null),
                ]))
            }))
            var links = JSONObject([("streamServer", .string("/arcgis/rest/services/\(specification.name)/StreamServer"))])
            if specification.store != nil {
                links.append(key: "latest", value: .string("/arcgis/rest/services/\(specification.latestLayerName)/FeatureServer/0"))
                links.append(key: "tracks", value: .string("/arcgis/rest/services/\(specification.tracksLayerName)/FeatureServer/0"))
                links.append(key: "hotSpots", value: .string("/arcgis/rest/services/\(specification.name)/GPServer/\(HotSpotServiceSpecification.taskName)"))
            }
            object.append(key: "links", value: .object(links))
            if let service = state.hotSpots[specification.name], let job = await service.jobs.latestSucceededJob() {
                object.append(key: "latestHotSpotJob", value: .string(job))
            }
            services.append(.object(object))
        }
        var top = JSONObject([("currentVersion", .double(11.1)), ("services", .array(services))])
        let policy: String
        switch state.configuration.slowClientPolicy {
        case .dropOldest: policy = "drop-oldest"
        case .disconnect: policy = "close"
        case .waitForSpace: policy = "wait"
        }
        top.append(key: "slowClients", value: .string(policy))
        top.append(key: "clientQueueBytes", value: .int(Int64(state.configuration.clientQueueBytes)))
        if let maximum = state.configuration.maximumClients { top.append(key: "maximumClients", value: .int(Int64(maximum))) }
        return JSONValue.object(top).encodedBytes
    }

    /// A live service whose source has not yet said what it streams: 503,
    /// as ArcGIS answers for a service that is starting.
    static func notYetKnown(_ stream: LiveStream) -> HTTPServerResponse {
        HTTPServerResponse(status: 503, body: DescriptionBuilder.error(
            code: 503, message: "Service \(stream.name) is not available yet: its source has not described its stream (still connecting)"))
    }

    /// Why an upgrade to `service` is refused before its filter is read:
    /// a live service not yet described (503), or too many subscribers (503).
    static func liveUpgradeRefusal(_ service: SimulatedService, state: SharedState) -> WebSocketUpgradeDecision? {
        if case .live(let stream) = service.feed, !stream.info.isKnown {
            return .reject(status: 503, body: "the stream is not available yet (its source is still connecting)")
        }
        if let maximum = state.configuration.maximumClients, state.subscribers.withLock({ $0.count }) >= maximum {
            state.configuration.log("\(service.name): refused a subscriber: \(maximum) are connected (the most allowed)")
            return .reject(status: 503, body: "too many subscribers (at most \(maximum))")
        }
        return nil
    }
}
