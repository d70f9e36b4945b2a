import EntityStreamCore
import EntityStreamHotSpots
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// Answers the REST requests of the simulator's hot-spot geoprocessing
/// services (ArcGIS's GP REST protocol) and their result map services:
/// - `…/services/NAME/GPServer`: the service (its one task);
/// - `…/GPServer/911 Calls Hotspot`: the task description with its parameters;
/// - `…/<task>/submitJob` (GET or POST form): `{"jobId","jobStatus"}`;
/// - `…/<task>/jobs/<id>`: status, messages, result and input links;
/// - `…/<task>/jobs/<id>/cancel`: cancels (answers the status);
/// - `…/<task>/jobs/<id>/results/Output_Features`, `…/inputs/<name>`;
/// - `…/services/NAME/MapServer/jobs/<id>`, `…/jobs/<id>/0` and
///   `…/jobs/<id>/0/query`: the result map service (a point layer: fishnet
///   cells at their centres), answered by the feature-layer machinery.
/// Tokens apply as for layers (499 missing, 498 wrong, HTTP 200 with error
/// JSON). Unknown tasks, jobs and results answer 404 with error JSON, a bad
/// parameter 400. `f=pjson` indents.
enum GPRouter {
    /// The response for `request` when its path belongs to a hot-spot service, else nil.
    static func respond(to request: HTTPServerRequest, parts: [String], services: [String: SimulatedHotSpotService],
                        tokens: TokenAuthority) async -> HTTPServerResponse? {
        guard parts.count >= 5, parts[0] == "arcgis", parts[1] == "rest", parts[2] == "services",
              let service = services[parts[3]], parts[4] == "GPServer" || (parts[4] == "MapServer" && parts.count >= 7 && parts[5] == "jobs")
        else { return nil }
        var parameters = request.query
        if request.method == .post, !request.body.isEmpty {
            guard let form = PercentEncoding.parseForm(String(decoding: request.body, as: UTF8.self)) else {
                return error(ArcGISError(code: 400, message: "Unable to complete operation.", details: ["the form body is not valid application/x-www-form-urlencoded"]), status: 400)
            }
            parameters += form.map { (name: $0.0, value: $0.1) }
        }
        switch tokens.checkREST(parameters: parameters, headers: request.headers) {
        case .missing: return error(ArcGISError(code: 499, message: "Token Required"), status: 200)
        case .invalid: return error(ArcGISError(code: 498, message: "Invalid Token"), status: 200)
        case .accepted: break
        }
        let pretty = parameters.contains { Schema.fold($0.name) == "f" && Schema.fold($0.value) == "pjson" }
        if parts[4] == "MapServer" { return await resultMapService(service, parts: Array(parts[6...]), parameters: parameters, pretty: pretty) }
        let taskName = HotSpotServiceSpecification.taskName
        if parts.count == 5 {
            let root = JSONObject([("currentVersion", .double(11.1)), ("serviceDescription", .string("Hot spots of \(service.name)")),
                                   ("tasks", .array([.string(taskName)])), ("executionType", .string("esriExecutionTypeAsynchronous")),
                                   ("resultMapServerName", .string(service.name)), ("maximumRecords", .int(1000))])
            return json(JSONValue.object(root).encodedBytes, pretty: pretty)
        }
        guard parts[5] == taskName else {
            return notFound("task '\(parts[5].prefix(80))' does not exist (the service has '\(taskName)')")
        }
        let rest = Array(parts[6...])
        switch rest.count {
        case 0:
            return json(service.task.description.encoded, pretty: pretty)
        case 1 where rest[0] == "submitJob":
            let gpRequest: HotSpotTask.Request
            do { gpRequest = try service.task.request(parameters) } catch { return self.error(error, status: 400) }
            do { return json(try await service.jobs.submit(gpRequest).encoded, pretty: pretty) } catch { return self.error(error, status: 200) }
        case 2 where rest[0] == "jobs":
            guard let info = await service.jobs.info(rest[1]) else { return unknownJob(rest[1]) }
            return json(info.encoded, pretty: pretty)
        case 3 where rest[0] == "jobs" && rest[2] == "cancel":
            guard let info = await service.jobs.cancel(rest[1]) else { return unknownJob(rest[1]) }
            return json(info.encoded, pretty: pretty)
        case 4 where rest[0] == "jobs" && rest[2] == "results":
            guard await service.jobs.knows(rest[1]) else { return unknownJob(rest[1]) }
            guard let body = await service.jobs.result(rest[1], name: rest[3]) else {
                return notFound("job \(rest[1]) has no result '\(rest[3].prefix(80))' (yet): \(HotSpotTask.resultName) exists once the job succeeded")
            }
            return json(body, pretty: pretty)
        case 4 where rest[0] == "jobs" && rest[2] == "inputs":
            guard await service.jobs.knows(rest[1]) else { return unknownJob(rest[1]) }
            guard let input = await service.jobs.input(rest[1], name: rest[3]) else { return notFound("job \(rest[1]) has no input '\(rest[3].prefix(80))'") }
            return json(input.encoded, pretty: pretty)
        default:
            return notFound("no such resource")
        }
    }

    /// `MapServer/jobs/<id>[/0[/query]]`: the job's result as a map service.
    private static func resultMapService(_ service: SimulatedHotSpotService, parts: [String], parameters: [(name: String, value: String)],
                                         pretty: Bool) async -> HTTPServerResponse {
        let id = parts[0]
        guard await service.jobs.knows(id) else { return unknownJob(id) }
        guard let layer = await service.jobs.layer(id) else {
            return notFound("job \(id) has no result map service (it has not succeeded)")
        }
        switch parts.count {
        case 1: return LayerRouter.json(FeatureServiceRoot(kind: .mapServer, name: "\(service.name) job \(id)", layers: [layer.description]).json(), pretty: pretty)
        case 2 where parts[1] == "0": return LayerRouter.json(layer.description.json(), pretty: pretty)
        case 3 where parts[1] == "0" && parts[2] == "query": return LayerRouter.query(layer, parameters: parameters)
        default: return notFound(parts.count > 1 && parts[1] != "0" ? "layer \(parts[1].prefix(20)) does not exist (the result has layer 0)" : "no such resource")
        }
    }

    private static func unknownJob(_ id: String) -> HTTPServerResponse {
        notFound("job '\(id.prefix(80))' does not exist (or was forgotten)")
    }

    private static func notFound(_ detail: String) -> HTTPServerResponse {
        error(ArcGISError(code: 404, message: "Requested operation is not supported or resource not found.", details: [detail]), status: 404)
    }

    static func json(_ bytes: [UInt8], pretty: Bool) -> HTTPServerResponse {
        LayerRouter.json(bytes, pretty: pretty)
    }

    static func error(_ error: ArcGISError, status: Int) -> HTTPServerResponse {
        LayerRouter.error(error, status: status)
    }
}

extension JSONValue {
    /// Compact JSON text.
    var encodedBytes: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.append(self)
        return writer.bytes
    }
}
