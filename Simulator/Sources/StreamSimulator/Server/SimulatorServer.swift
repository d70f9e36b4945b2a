import EntityStreamCore
import EntityStreamLocking
import Synchronization
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// An ArcGIS stream-service emulator on one port: for each service,
/// `GET /arcgis/rest/services/<Name>/StreamServer?f=json` answers a real
/// service description, and `/arcgis/ws/services/<Name>/StreamServer/subscribe`
/// streams one Esri feature per text frame, filtered per subscriber. Each
/// feature layer is served as `…/services/<Name>/MapServer/0` and
/// `…/FeatureServer/0` with `query` (see `LayerRouter`); each hot-spot
/// service as `…/services/<Name>/GPServer/911 Calls Hotspot` with its jobs
/// and result map services (see `GPRouter`).
///
/// ``start(_:)`` loads every service and layer first (throwing
/// ``SimulatorError`` for an unreadable file or bad option) and then
/// listens. Thread-safe; ``shutdown()`` closes every subscriber politely.
public final class SimulatorServer: Sendable {
    public let port: Int
    public let usesTLS: Bool
    public let serviceNames: [String]
    public let layerNames: [String]
    public let hotSpotServiceNames: [String]
    private let server: TransportServer
    private let state: SharedState
    private let rotation: Task<Void, Never>?

    final class SharedState: Sendable {
        let services: [String: SimulatedService]
        let layers: [String: any LayerSource]
        let hotSpots: [String: SimulatedHotSpotService]
        /// The fleets' latest-per-track archive layers, by layer name.
        let archives: [String: FleetLatestArchive]
        /// Per fleet service name: its archive and vehicle-table layer names, when served.
        let buddies: [String: (archive: String?, related: String?)]
        /// Live services (a relay's), by name.
        let live: [String: LiveServiceSpecification]
        /// Their store layers (`NAME_Latest`, `NAME_Tracks`), by layer name.
        let liveLayers: [String: any LayerSource]
        let tokens: TokenAuthority
        let configuration: SimulatorConfiguration
        let serverStart: Int64
        let upgrades = Atomic<Int>(0)
        let subscribers = LockedState<[Int: SubscriberSession]>([:])
        let nextSubscriber = Atomic<Int>(1)
        /// `ws://host:port` of the address the server listens on (never a
        /// request's `Host` header): where `streamUrls` point.
        let webSocketBase = LockedState<String>("")

        init(services: [String: SimulatedService], layers: [String: any LayerSource], hotSpots: [String: SimulatedHotSpotService],
             configuration: SimulatorConfiguration) throws(SimulatorError) {
            let serverStart = configuration.clock.now()
            var layers = layers
            var hotSpots = hotSpots
            (live, liveLayers) = try Self.liveServices(configuration, taken: Set(services.keys).union(layers.keys).union(hotSpots.keys),
                                                       hotSpots: &hotSpots)
            var archives: [String: FleetLatestArchive] = [:]
            var buddies: [String: (archive: String?, related: String?)] = [:]
            for (name, service) in services {
                guard case .fleet(let fleet) = service.feed else { continue }
                var entry: (archive: String?, related: String?) = (nil, nil)
                if configuration.fleetArchive {
                    let layerName = "\(name)_Latest"
                    guard layers[layerName] == nil, hotSpots[layerName] == nil else {
                        throw .archiveLayerTaken(layer: layerName, service: name)
                    }
                    archives[layerName] = FleetLatestArchive(name: layerName, configuration: fleet, serverStart: serverStart, clock: configuration.clock,
                                                             maxRecordCount: configuration.maxRecordCount, supportsPagination: configuration.layerPagination)
                    entry.archive = layerName
                }
                if configuration.fleetRelated {
                    let layerName = "\(name)_Vehicles"
                    guard layers[layerName] == nil, hotSpots[layerName] == nil, archives[layerName] == nil else {
                        throw .vehicleTableTaken(layer: layerName, service: name)
                    }
                    layers[layerName] = SimulatedLayer(table: FleetVehicleTable.table(name: layerName, vehicles: fleet.normalized.vehicles),
                                                       maxRecordCount: configuration.maxRecordCount, supportsPagination: configuration.layerPagination,
                                                       statistics: configuration.statisticsEngine)
                    entry.related = layerName
                }
                buddies[name] = entry
            }
            self.services = services
            self.layers = layers
            self.hotSpots = hotSpots
            self.archives = archives
            self.buddies = buddies
            self.configuration = configuration
            self.tokens = TokenAuthority(token: configuration.token, rotating: configuration.faults.expireTokenAfterSeconds != nil)
            self.serverStart = serverStart
        }

        /// The layer a request for `name` addresses (an archive's and a live store's as of the request).
        func layerSource(named name: String) -> (any LayerSource)? {
            archives[name] ?? liveLayers[name] ?? layers[name]
        }

        /// The stream service `name`: a simulated one, or a live one as of now.
        func service(named name: String) -> SimulatedService? {
            services[name] ?? live[name].map { SimulatedService.live($0.stream) }
        }
    }

    private init(port: Int, usesTLS: Bool, serviceNames: [String], layerNames: [String], hotSpotServiceNames: [String], server: TransportServer,
                 state: SharedState, rotation: Task<Void, Never>?) {
        self.port = port
        self.usesTLS = usesTLS
        self.serviceNames = serviceNames
        self.layerNames = layerNames
        self.hotSpotServiceNames = hotSpotServiceNames
        self.server = server
        self.state = state
        self.rotation = rotation
    }

    public static func start(_ configuration: SimulatorConfiguration) async throws(SimulatorError) -> SimulatorServer {
        guard !configuration.services.isEmpty || !configuration.layers.isEmpty || !configuration.hotSpotServices.isEmpty
                || !configuration.liveServices.isEmpty else {
            throw .nothingToServe
        }
        try configuration.validate()
        var services: [String: SimulatedService] = [:]
        for specification in configuration.services {
            guard services[specification.name] == nil else { throw .serviceGivenTwice(specification.name) }
            let service = try SimulatedService.load(specification, trackIDField: configuration.trackIDField)
            for line in service.skippedLines { configuration.log(line) }
            if service.skippedLineCount > service.skippedLines.count {
                configuration.log("service \(service.name): \(service.skippedLineCount) unusable lines skipped in all")
            }
            services[specification.name] = service
        }
        guard configuration.maxRecordCount >= 1 else { throw .maxRecordCountBelowOne }
        var layers: [String: any LayerSource] = [:]
        for specification in configuration.layers {
            guard layers[specification.name] == nil else { throw .layerGivenTwice(specification.name) }
            if let streamed = try await streamedLayer(specification, configuration: configuration) {
                layers[specification.name] = streamed
                configuration.log("layer \(specification.name): \(streamed.index.rows) \(streamed.geometryType == .none ? "rows (a table)" : "features") from \(specification.path) (\(streamed.report.format?.name ?? "?"), read for each query, not held)")
                for line in streamed.report.summary { configuration.log("layer \(specification.name): \(line)") }
                continue
            }
            let layer = try SimulatedLayer.load(specification, maxRecordCount: configuration.maxRecordCount,
                                                supportsPagination: configuration.layerPagination, statistics: configuration.statisticsEngine)
            layers[specification.name] = layer
            let report = layer.table.report
            configuration.log("layer \(specification.name): \(layer.table.count) \(layer.table.geometryType == .none ? "rows (a table)" : "features") from \(specification.path) (\(report.format?.name ?? "?"))")
            for line in report.summary { configuration.log("layer \(specification.name): \(line)") }
        }
        var hotSpots: [String: SimulatedHotSpotService] = [:]
        for specification in configuration.hotSpotServices {
            guard hotSpots[specification.name] == nil, layers[specification.name] == nil else {
                throw .hotSpotNameGivenTwice(specification.name)
            }
            let service = try SimulatedHotSpotService.load(specification, configuration: configuration)
            hotSpots[specification.name] = service
            guard let table = service.task.table else { continue }
            configuration.log("hotspots \(specification.name): \(table.count) incidents from \(specification.path) (\(table.report.format?.name ?? "?"), wkid \(table.spatialReference.map(String.init) ?? "none"), time field \(table.startTimeFieldIndex.map { table.schema.fields[$0].name } ?? "none"))")
            for line in table.report.summary { configuration.log("hotspots \(specification.name): \(line)") }
        }
        let state = try SharedState(services: services, layers: layers, hotSpots: hotSpots, configuration: configuration)
        for (name, entry) in state.buddies.sorted(by: { $0.key < $1.key }) {
            if let archive = entry.archive { configuration.log("service \(name): latest-per-track archive served as layer \(archive) (keepLatestArchive)") }
            if let related = entry.related { configuration.log("service \(name): vehicle table served as layer \(related) (relatedFeatures, joinField vehiclename)") }
        }
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        serverConfiguration.tls = configuration.tls
        serverConfiguration.slowClientPolicy = configuration.slowClientPolicy
        serverConfiguration.outboundQueueLimit = configuration.clientQueueBytes
        serverConfiguration.sendBufferBytes = configuration.clientSendBufferBytes
        serverConfiguration.customRequestHeaders = CORSPolicy.requestHeaders
        serverConfiguration.httpResponder = { request in await Self.respond(to: request, state: state) }
        serverConfiguration.webSocketResponder = { request in Self.upgrade(request, state: state) }
        let server: TransportServer
        do throws(TransportError) { server = try await TransportServer.start(serverConfiguration) } catch { throw .server(error) }
        state.webSocketBase.withLock { $0 = server.webSocketBase }
        for live in configuration.liveServices {
            live.stream.attach(queueLimit: configuration.clientQueueBytes) { await server.nextServiceTurn() }
        }
        var rotation: Task<Void, Never>?
        if let seconds = configuration.faults.expireTokenAfterSeconds {
            rotation = Task { await Self.rotateTokens(every: seconds, state: state) }
        }
        return SimulatorServer(port: server.port, usesTLS: configuration.tls != nil, serviceNames: configuration.services.map(\.name),
                               layerNames: configuration.layers.map(\.name), hotSpotServiceNames: configuration.hotSpotServices.map(\.name),
                               server: server, state: state, rotation: rotation)
    }

    /// `specification`'s layer read from its file for each query, when the
    /// file is larger than ``SimulatorConfiguration/layerStreamingThreshold``
    /// and its format streams; nil: load it whole.
    static func streamedLayer(_ specification: LayerSpecification, configuration: SimulatorConfiguration) async throws(SimulatorError) -> StreamedFileLayer? {
        let size: Int
        do throws(FeatureLoadError) { size = try FeatureFile.size(path: specification.path) } catch { throw .layerFile(name: specification.name, error) }
        guard size > configuration.layerStreamingThreshold else { return nil }
        return try await StreamedFileLayer.open(specification, maxRecordCount: configuration.maxRecordCount,
                                                supportsPagination: configuration.layerPagination, statistics: configuration.statisticsEngine,
                                                log: configuration.log)
    }

    /// The REST URL of service `name` (what a client connects to).
    public func serviceURL(_ name: String) -> String {
        "\(server.httpBase)/arcgis/rest/services/\(name)/StreamServer"
    }

    /// The URL of layer `name`'s layer 0 (`…/NAME/MapServer/0`, or `FeatureServer`).
    public func layerURL(_ name: String, kind: FeatureServiceRoot.Kind = .mapServer) -> String {
        "\(server.httpBase)/arcgis/rest/services/\(name)/\(kind.rawValue)/0"
    }

    /// The URL of hot-spot service `name`'s task (`…/NAME/GPServer/911%20Calls%20Hotspot`).
    public func hotSpotTaskURL(_ name: String) -> String {
        "\(server.httpBase)/arcgis/rest/services/\(name)/GPServer/" + HotSpotServiceSpecification.taskName.split(separator: " ").joined(separator: "%20")
    }

    /// When the server started (epoch ms, the configuration's clock at start);
    /// each fleet's timeline is ``SnowplowFleet/served(configuration:serverStart:)``'s.
    public var serverStart: Int64 { state.serverStart }

    /// The base HTTP URL, `http://127.0.0.1:PORT` (or https).
    public var httpBase: String { server.httpBase }

    /// The address the server listens on (exactly that one, or every interface).
    public var listenAddress: ListenAddress { server.listenAddress }

    /// The token the description currently hands out for sockets.
    public var currentSocketToken: String? { state.tokens.socketToken }

    /// Subscribers connected now.
    public var subscriberCount: Int { state.subscribers.withLock { $0.count } }

    public func shutdown() async {
        rotation?.cancel()
        await server.shutdown()
    }

    // MARK: HTTP

    /// Every HTTP answer: a preflight (`OPTIONS`) answered by the CORS
    /// policy, any other request routed and given the CORS headers.
    private static func respond(to request: HTTPServerRequest, state: SharedState) async -> HTTPServerResponse {
        let cors = state.configuration.cors
        if request.method == .options { return cors.preflight(request) }
        var response = await route(request, state: state)
        if let callback = request.query.last(where: { $0.name == "callback" })?.value, !callback.isEmpty, response.contentType.hasPrefix("application/json") {
            response = JSONP.wrap(response, callback: callback)
        }
        return cors.decorate(response, for: request)
    }

    private static func route(_ request: HTTPServerRequest, state: SharedState) async -> HTTPServerResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        if let response = await liveRoute(request, parts: parts, state: state) { return response }
        if parts == ["arcgis", "rest", "info"] {
            return HTTPServerResponse(body: DescriptionBuilder.restInfo(tokenRequired: state.configuration.token != nil))
        }
        if parts == ["arcgis", "rest", "services"] {
            if let refusal = tokenRefusal(request, state: state) { return refusal }
            var entries: [(String, String)] = (Array(state.services.keys) + Array(state.live.keys)).map { ($0, "StreamServer") }
            for name in state.hotSpots.keys { entries.append((name, "GPServer")) }
            for name in Array(state.layers.keys) + Array(state.archives.keys) + Array(state.liveLayers.keys) {
                entries.append((name, FeatureServiceRoot.Kind.mapServer.rawValue))
                entries.append((name, FeatureServiceRoot.Kind.featureServer.rawValue))
            }
            entries.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            var writer = JSONWriter(capacity: 256)
            writer.append(.object(JSONObject([("currentVersion", .double(11.1)), ("folders", .array([])), ("services", .array(entries.map {
                .object(JSONObject([("name", .string($0.0)), ("type", .string($0.1))]))
            }))])))
            return HTTPServerResponse(body: writer.bytes)
        }
        if let response = await GPRouter.respond(to: request, parts: parts, services: state.hotSpots, tokens: state.tokens) {
            return response
        }
        if parts.count >= 5, let response = await LayerRouter.respond(to: request, parts: parts, layer: state.layerSource(named: parts[3]),
                                                                      tokens: state.tokens) {
            return response
        }
        guard parts.count == 5, parts[0] == "arcgis", parts[1] == "rest", parts[2] == "services", parts[4] == "StreamServer",
              let service = state.service(named: parts[3]) else {
            return HTTPServerResponse(status: 404, body: DescriptionBuilder.error(code: 404, message: "Service not found: \(request.path)"))
        }
        if let refusal = tokenRefusal(request, state: state) { return refusal }
        if case .live(let stream) = service.feed, !stream.info.isKnown { return notYetKnown(stream) }
        // URLs name the listening address, never the request's Host header.
        let base = state.webSocketBase.withLock { $0 }
        let socketBase = "\(base)/arcgis/ws/services/\(service.name)/StreamServer"
        let restBase = (base.hasPrefix("wss:") ? "https:" : "http:") + base.drop { $0 != ":" }.dropFirst() + "/arcgis/rest/services"
        let buddies = state.buddies[service.name] ?? state.live[service.name].flatMap { $0.store == nil ? nil : (archive: $0.latestLayerName, related: nil) }
        return HTTPServerResponse(body: DescriptionBuilder.json(
            for: service, socketBase: socketBase, token: state.tokens.socketToken,
            archiveURL: buddies?.archive.map { "\(restBase)/\($0)/FeatureServer/0" },
            related: buddies?.related.map { (url: "\(restBase)/\($0)/FeatureServer/0", joinField: "vehiclename") }))
    }

    /// ArcGIS's answer to a REST request without the required token (499) or
    /// with a wrong one (498); nil when the token is fine or none is required.
    static func tokenRefusal(_ request: HTTPServerRequest, state: SharedState) -> HTTPServerResponse? {
        switch state.tokens.checkREST(parameters: request.query + request.formFields.map { (name: $0.0, value: $0.1) }, headers: request.headers) {
        case .missing: return HTTPServerResponse(body: DescriptionBuilder.error(code: 499, message: "Token Required"))
        case .invalid: return HTTPServerResponse(body: DescriptionBuilder.error(code: 498, message: "Invalid Token"))
        case .accepted: return nil
        }
    }

    // MARK: WebSocket

    private static func upgrade(_ request: WebSocketUpgradeRequest, state: SharedState) -> WebSocketUpgradeDecision {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count == 6, parts[0] == "arcgis", parts[1] == "ws", parts[2] == "services", parts[4] == "StreamServer",
              parts[5] == "subscribe", let service = state.service(named: parts[3]) else {
            return .reject(status: 404, body: "no such stream service")
        }
        if let refusal = liveUpgradeRefusal(service, state: state) { return refusal }
        if let origin = request.headers["Origin"], !state.configuration.cors.allows(origin) {
            return .reject(status: 403, body: "origin not allowed")
        }
        let configuration = state.configuration
        let number = state.upgrades.wrappingAdd(1, ordering: .relaxed).newValue
        if number <= configuration.faults.rejectFirst {
            configuration.log("fault: refusing upgrade \(number) of \(configuration.faults.rejectFirst) with 503")
            return .reject(status: 503, body: "service unavailable (simulated)")
        }
        let token = request.queryValue("token")
        switch state.tokens.checkSocket(token) {
        case .missing:
            return .reject(status: 401, body: "token required")
        case .invalid:
            return .accept { socket in await socket.close(code: 4401, reason: "invalid token") }
        case .accepted:
            break
        }
        let filter: SubscriberFilter
        do {
            let (schema, reference) = service.current
            filter = try SubscriberFilter(try SubscriberFilter.parse(query: request.query), schema: schema, serviceReference: reference)
        } catch {
            let reason = String(error.description.utf8.prefix(120)) ?? "invalid filter"
            return .accept { socket in await socket.close(code: 4400, reason: reason) }
        }
        return .accept { socket in
            let id = state.nextSubscriber.wrappingAdd(1, ordering: .relaxed).oldValue
            let session = SubscriberSession(id: id, service: service, token: token, socket: socket, filter: filter,
                                            configuration: configuration, serverStart: state.serverStart)
            state.subscribers.withLock { $0[id] = session }
            await session.run()
            state.subscribers.withLock { $0[id] = nil }
        }
    }

    private static func rotateTokens(every seconds: Double, state: SharedState) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) } catch { return }
            let fresh = state.tokens.rotate()
            state.configuration.log("fault: socket token expired; the description now hands out a new one (generation \(state.tokens.generation))")
            let stale = state.subscribers.withLock { $0.values.filter { $0.token != fresh } }
            for session in stale { await session.expireToken() }
        }
    }
}
