import EntityStreamCore
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// Answers the REST requests of the simulator's feature layers:
/// - `…/services/NAME/MapServer` and `…/NAME/FeatureServer`: the service root;
/// - `…/NAME/MapServer/layers` and `…/FeatureServer/layers`: every layer's
///   and table's full description (`{"layers":[…],"tables":[…]}`);
/// - `…/NAME/MapServer/0` and `…/FeatureServer/0`: the layer description;
/// - `…/0/query`, GET or POST form: the query, in `f=json`, `pjson` or `geojson`.
/// The token applies as for stream services: a missing one answers 499, a
/// wrong one 498 (HTTP 200 with ArcGIS error JSON, as ArcGIS does). A bad
/// query parameter answers HTTP 400 with error JSON naming it; an unknown
/// layer id or path 404 with error JSON. Stateless.
enum LayerRouter {
    /// The response for `request` when its path is a layer path, else nil.
    static func respond(to request: HTTPServerRequest, parts: [String], layer: (any LayerSource)?,
                        tokens: TokenAuthority) async -> HTTPServerResponse? {
        guard parts.count >= 5, parts[0] == "arcgis", parts[1] == "rest", parts[2] == "services",
              let kind = FeatureServiceRoot.Kind(rawValue: parts[4]) else { return nil }
        guard let layer else { return nil }

        var parameters = request.query
        if request.method == .post, !request.body.isEmpty {
            guard let form = PercentEncoding.parseForm(String(decoding: request.body, as: UTF8.self)) else {
                return error(ArcGISError(code: 400, message: "Unable to complete operation.", details: ["the form body is not valid application/x-www-form-urlencoded"]), status: 400)
            }
            parameters += form.map { (name: $0.0, value: $0.1) }
        }
        switch tokens.checkREST(parameters: parameters, headers: request.headers) {
        case .missing: return error(.tokenRequired, status: 200)
        case .invalid: return error(.invalidToken, status: 200)
        case .accepted: break
        }
        let pretty = parameters.contains { Schema.fold($0.name) == "f" && Schema.fold($0.value) == "pjson" }
        switch parts.count {
        case 5:
            let description = await layer.currentDescription()
            return json(FeatureServiceRoot(kind: kind, name: description.name, layers: [description]).json(), pretty: pretty)
        case 6 where parts[5] == "layers":
            return json(FeatureServiceRoot.layersResource([await layer.currentDescription()]), pretty: pretty)
        case 6 where parts[5] == "0":
            return json(await layer.currentDescription().json(), pretty: pretty)
        case 7 where parts[5] == "0" && parts[6] == "query":
            return await query(source: layer, parameters: parameters)
        default:
            let detail = parts.count > 5 && parts[5] != "0" ? "layer or table \(parts[5]) does not exist (the service has layer 0)" : "no such resource"
            return error(ArcGISError(code: 404, message: "Requested operation is not supported or resource not found.", details: [detail]), status: 404)
        }
    }

    /// A query of `source`: the layer to answer from is the source's as of this request.
    static func query(source: any LayerSource, parameters: [(name: String, value: String)]) async -> HTTPServerResponse {
        let query: FeatureQuery
        let layer: SimulatedLayer
        do throws(FeatureQueryError) {
            query = try FeatureQuery(parameters: parameters)
        } catch {
            return self.error(error.arcGISError, status: 400)
        }
        do {
            if let result = try await source.answer(query) { return response(result, format: query.format) }
        } catch let error as FeatureQueryError {
            return self.error(error.arcGISError, status: 400)
        } catch {
            return self.error(ArcGISError(code: 500, message: "Unable to complete operation.", details: [String(describing: error)]), status: 500)
        }
        do throws(FeatureQueryError) {
            layer = try await source.layer(answering: query)
        } catch {
            return self.error(error.arcGISError, status: 400)
        }
        return self.query(layer, parameters: parameters, parsed: query)
    }

    static func query(_ layer: SimulatedLayer, parameters: [(name: String, value: String)], parsed: FeatureQuery? = nil) -> HTTPServerResponse {
        let query: FeatureQuery
        var result: FeatureQueryResult
        do throws(FeatureQueryError) {
            if let parsed { query = parsed } else { query = try FeatureQuery(parameters: parameters) }
            if let polygons = layer.polygons {
                result = try polygonQuery(query, layer: layer, polygons: polygons)
            } else {
                result = try layer.engine.run(query, on: layer.table)
            }
        } catch {
            return self.error(error.arcGISError, status: 400)
        }
        return response(result, format: query.format)
    }

    /// A query's answer as the response body, in the format asked for.
    static func response(_ result: FeatureQueryResult, format: FeatureQuery.Format) -> HTTPServerResponse {
        var contentType = "application/json"
        if format == .geojson, case .features = result { contentType = "application/geo+json" }
        return HTTPServerResponse(status: 200, contentType: contentType, body: FeatureSetWriter.write(result, format: format))
    }

    /// A query of a polygon layer: the spatial filter tests each row's
    /// polygon bounds (exact for a fishnet's axis-aligned cells) and becomes
    /// an object-id filter, the engine does the rest (where, time, order,
    /// paging, statistics), and features and extents come out as polygons,
    /// in the output spatial reference when it can be converted to.
    static func polygonQuery(_ query: FeatureQuery, layer: SimulatedLayer, polygons: RowPolygons) throws(FeatureQueryError) -> FeatureQueryResult {
        let table = layer.table
        var engineQuery = query
        if let geometry = query.geometry {
            let area = try SearchArea(envelope: try FeatureQueryEngine.envelope(geometry, into: table.spatialReference), distance: query.distance,
                                      unit: query.distanceUnit, layerReference: table.spatialReference)
            var ids: [Int64] = []
            let wanted = query.objectIDs.map(Set.init)
            for row in 0..<table.count {
                let id = table.objectID(at: row)
                if let wanted, !wanted.contains(id) { continue }
                if let box = polygons.bounds(ofRow: row), area.intersects(box) { ids.append(id) }
            }
            engineQuery.geometry = nil
            engineQuery.distance = nil
            engineQuery.objectIDs = ids
        }
        var result = try layer.engine.run(engineQuery, on: table)
        switch result {
        case .features(var selection):
            let target = selection.spatialReference
            // The engine checked that the table's points convert to the output reference; corners through PROJ too.
            let converted = polygons.rings.map { rings in
                (try? FeatureQueryEngine.rings(rings, from: table.spatialReference, into: target)) ?? rings
            }
            let shapes = RowPolygons(rings: converted)
            selection.polygons = shapes
            if selection.asksQueryExtent {
                let matched = (try? layer.engine.run(FeatureQuery.idsOnly(of: engineQuery), on: table)).flatMap { answer -> [Int]? in
                    guard case .objectIDs(_, let ids) = answer else { return nil }
                    return ids.compactMap { table.row(withObjectID: $0) }
                } ?? selection.rows
                selection.queryExtent = shapes.bounds(ofRows: matched, wkid: target)
            }
            result = .features(selection)
        case .extent(_, let wkid, let count):
            let matched: [Int]
            if case .objectIDs(_, let ids) = try layer.engine.run(FeatureQuery.idsOnly(of: engineQuery), on: table) {
                matched = ids.compactMap { table.row(withObjectID: $0) }
            } else {
                matched = []
            }
            var box = polygons.bounds(ofRows: matched, wkid: table.spatialReference)
            if let wkid, let current = box, wkid != table.spatialReference {
                box = try? FeatureQueryEngine.envelope(current, into: wkid)
            }
            result = .extent(box, spatialReference: wkid, count: count)
        default:
            break
        }
        return result
    }

    static func json(_ bytes: [UInt8], pretty: Bool) -> HTTPServerResponse {
        HTTPServerResponse(status: 200, contentType: "application/json", body: pretty ? JSONPrettyPrinter.format(bytes) : bytes)
    }

    static func error(_ error: ArcGISError, status: Int) -> HTTPServerResponse {
        HTTPServerResponse(status: status, contentType: "application/json", body: error.json())
    }
}
