import EntityStreamCore
import EntityStreamLocking
import EntityStreamTransport

/// A stream service for tests, on a loopback ``TransportServer``: serves a
/// description at `/arcgis/rest/services/Test/StreamServer` and the socket at
/// `/arcgis/ws/services/Test/StreamServer/subscribe`, each scripted by the
/// test, and records every request it saw.
public final class ScriptedStreamService: Sendable {
    /// One request to the description endpoint, as a script sees it.
    public struct DescriptionCall: Sendable {
        /// 0 for the first description request, then 1, 2, …
        public let index: Int
        public let request: HTTPServerRequest
        /// This service's socket URL (what its `streamUrls` should name).
        public let socketBase: String
    }

    /// What the description endpoint answers to each call.
    public typealias DescriptionScript = @Sendable (DescriptionCall) async -> HTTPServerResponse
    /// What the socket does for the `index`-th upgrade (0-based): reject or run a handler.
    public typealias SocketScript = @Sendable (_ index: Int, _ request: WebSocketUpgradeRequest) -> WebSocketUpgradeDecision

    private struct Log {
        var descriptionRequests: [HTTPServerRequest] = []
        var upgrades: [WebSocketUpgradeRequest] = []
    }

    public let server: TransportServer
    private let log: LockedState<Log>

    public var serviceURL: String { "\(server.httpBase)/arcgis/rest/services/Test/StreamServer" }
    public var socketBase: String { "\(server.webSocketBase)/arcgis/ws/services/Test/StreamServer" }

    private init(server: TransportServer, log: LockedState<Log>) {
        self.server = server
        self.log = log
    }

    public static func start(description: @escaping DescriptionScript, socket: @escaping SocketScript) async throws -> ScriptedStreamService {
        let log = LockedState(Log())
        // Known once the server listens, before any client can ask.
        let socketBase = LockedState("")
        var configuration = ServerConfiguration()
        configuration.httpResponder = { request in
            guard request.path == "/arcgis/rest/services/Test/StreamServer" else {
                return HTTPServerResponse(status: 404, contentType: "text/plain", text: "no such service")
            }
            let index = log.withLock { log in
                log.descriptionRequests.append(request)
                return log.descriptionRequests.count - 1
            }
            return await description(DescriptionCall(index: index, request: request, socketBase: socketBase.withLock { $0 }))
        }
        configuration.webSocketResponder = { request in
            guard request.path == "/arcgis/ws/services/Test/StreamServer/subscribe" else {
                return .reject(status: 404, body: "no such stream")
            }
            let index = log.withLock { log in
                log.upgrades.append(request)
                return log.upgrades.count - 1
            }
            return socket(index, request)
        }
        let server = try await TransportServer.start(configuration)
        let service = ScriptedStreamService(server: server, log: log)
        socketBase.withLock { $0 = service.socketBase }
        return service
    }

    public var descriptionRequests: [HTTPServerRequest] { log.withLock { $0.descriptionRequests } }
    public var upgrades: [WebSocketUpgradeRequest] { log.withLock { $0.upgrades } }

    public func shutdown() async { await server.shutdown() }

    /// A description JSON for this server: vehicle fields, trackIdField
    /// `vehiclename` (unless nil), and a `ws` stream URL pointing back here.
    public static func descriptionJSON(socketBase: String, token: String? = nil, trackIDField: String? = "vehiclename") -> String {
        descriptionJSON(socketBases: [socketBase], token: token, trackIDField: trackIDField)
    }

    /// A description listing several socket URLs, in this order, in its one `streamUrls` entry.
    public static func descriptionJSON(socketBases: [String], token: String? = nil, trackIDField: String? = "vehiclename") -> String {
        let trackInfo = trackIDField.map { "\"timeInfo\":{\"trackIdField\":\"\($0)\",\"startTimeField\":null,\"endTimeField\":null}," } ?? ""
        let tokenMember = token.map { ",\"token\":\"\($0)\"" } ?? ""
        return """
        {"currentVersion":11.1,"description":"test vehicles",\(trackInfo)\
        "geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326,"latestWkid":4326},\
        "fields":[{"name":"vehiclename","type":"esriFieldTypeString","alias":"vehiclename","nullable":true},\
        {"name":"speed","type":"esriFieldTypeDouble","alias":"speed","nullable":true},\
        {"name":"agency","type":"esriFieldTypeInteger","alias":"agency","nullable":true}],\
        "streamUrls":[{"transport":"ws","urls":[\(socketBases.map { "\"\($0)\"" }.joined(separator: ","))]\(tokenMember)}],"capabilities":"broadcast,subscribe"}
        """
    }

    /// One vehicle feature as the service sends it.
    public static func feature(_ name: String, speed: Double, x: Double = -111.9, y: Double = 40.6) -> String {
        "{\"geometry\":{\"x\":\(x),\"y\":\(y),\"spatialReference\":{\"wkid\":4326}},\"attributes\":{\"vehiclename\":\"\(name)\",\"speed\":\(speed),\"agency\":3}}"
    }
}
