import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// 240 points the test writes itself: `id` 1…240, `name` site0…site6, a
/// header that is not a field name (`Population Estimate, 2013`: 1000 + id),
/// lon/lat on a grid around Portland with six decimals.
private let pointCount = 240
private func pointRows() -> [(id: Int, name: String, population: Int, lon: Double, lat: Double)] {
    (1...pointCount).map { id in
        (id, "site\(id % 7)", 1000 + id, -122.7 + Double(id % 20) * 0.0123457, 45.5 + Double(id / 20) * 0.0098765)
    }
}

private func startConformanceServer(configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> SimulatorServer {
    let points = ["id,name,\"Population Estimate, 2013\",lon,lat"] + pointRows().map { "\($0.id),\($0.name),\($0.population),\($0.lon),\($0.lat)" }
    let table = ["county,State Name,value"] + (0..<30).map { "c\($0),\($0 % 3 == 0 ? "WA" : "OR"),\($0)" }
    return try await startLayers([LayerSpecification(name: "Points", path: try writeTemporary(points)),
                                  LayerSpecification(name: "Counties", path: try writeTemporary(table))]) { configuration in
        configuration.maxRecordCount = 50
        configure(&configuration)
    }
}

/// GET `url`, the JSON answer (status and parsed body).
private func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> (status: Int, json: JSONValue, response: HTTPResponse) {
    let response = try await HTTPClient().send(HTTPRequest(method: .get, url: url, headers: headers))
    return (response.status, (try? JSONParser.parse(response.body)) ?? .null, response)
}

private func query(_ server: SimulatorServer, _ items: [(String, String)], layer: String = "Points") async throws -> JSONValue {
    let answer = try await get(server.layerURL(layer, kind: .featureServer) + "/query?" + PercentEncoding.query([("f", "json")] + items))
    #expect(answer.status == 200, "\(items): \(answer.response.text.prefix(300))")
    #expect(answer.json["error"] == nil, "\(items): \(answer.response.text.prefix(300))")
    return answer.json
}

/// One raw HTTP/1.1 exchange on 127.0.0.1:`port` (the transport's client
/// adds an Origin of its own and keeps only headers libwebsockets knows, so
/// CORS answers are read from the wire): the status and the headers,
/// names lowercased.
private func rawExchange(port: Int, method: String, target: String, headers: [(String, String)]) async throws -> (status: Int, headers: [String: String]) {
    let request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    let answer = await RawTCPExchange.exchange(port: port, send: Array(request.utf8))
    let head = answer.text.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
    let status = head.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
    var fields: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (status, fields)
}

/// Paths to every `null` member of `value` (ArcGIS omits members that do not apply).
private func nullMembers(_ value: JSONValue, path: String = "$") -> [String] {
    if let object = value.objectValue {
        return object.members.flatMap { $0.value == .null ? ["\(path).\($0.key)"] : nullMembers($0.value, path: "\(path).\($0.key)") }
    }
    if let array = value.arrayValue { return array.enumerated().flatMap { nullMembers($1, path: "\(path)[\($0)]") } }
    return []
}

@Suite("ArcGIS REST conformance of the simulator: the Query operation, resources, tokens, CORS, GP jobs", .bounded(.io))
struct ArcGISConformanceTests {
    /// A valid value for every parameter ArcGIS documents for Query; each is accepted (HTTP 200, no error).
    static let documentedValues: [String: String] = [
        "f": "json", "where": "id > 0", "objectids": "1,2,3", "time": "", "geometry": "-123,45,-122,46", "geometrytype": "esriGeometryEnvelope",
        "insr": "4326", "spatialrel": "esriSpatialRelIntersects", "outfields": "*", "returngeometry": "true", "outsr": "4326",
        "orderbyfields": "id DESC", "resultoffset": "0", "resultrecordcount": "10", "maxrecordcountfactor": "2", "returncountonly": "false",
        "returnidsonly": "false", "returndistinctvalues": "false", "outstatistics": "", "groupbyfieldsforstatistics": "", "having": "",
        "geometryprecision": "3", "quantizationparameters": #"{"mode":"view","originPosition":"upperLeft","tolerance":0.001,"extent":{"xmin":-123,"ymin":45,"xmax":-122,"ymax":46}}"#,
        "resulttype": "standard", "distance": "10", "units": "esriSRUnit_Meter", "returnextentonly": "false", "returnqueryextent": "true",
        "text": "site", "defaultsr": "4326", "token": "", "returnz": "false", "returnm": "false", "sqlformat": "none", "cachehint": "true",
        "returnexceededlimitfeatures": "true", "featureencoding": "esriDefault", "timereferenceunknownclient": "false",
        "returntruecurves": "false", "returncentroid": "false", "returnenvelope": "false", "returnuniqueidsonly": "false",
        "maxallowableoffset": "10", "gdbversion": "SDE.DEFAULT", "historicmoment": "1700000000000",
        "datumtransformation": "1188", "rangevalues": "[]", "parametervalues": "{}", "multipatchoption": "xyFootprint",
        "returnaggids": "false", "relationparam": "", "uniqueids": "", "returngeodetic": "false", "callback": "",
        "timerelation": "esriTimeRelationOverlaps", "aggregationids": "", "returnsubtypevalues": "false", "filter": "",
    ]

    /// Every documented parameter is accepted, alone and all together (esridump's geometryPrecision, the JS SDK's resultType=tile, …).
    @Test func everyDocumentedParameterIsAccepted() async throws {
        #expect(Set(Self.documentedValues.keys) == FeatureQuery.documentedParameters, "every documented parameter has a test value")
        let server = try await startConformanceServer()
        for (name, value) in Self.documentedValues.sorted(by: { $0.key < $1.key }) where !value.isEmpty {
            var items = [(name, value)]
            if name == "distance" || name == "units" { items.append(("geometry", "-122.6,45.55")) }
            _ = try await query(server, items)
        }
        _ = try await query(server, Self.documentedValues.filter { !$0.value.isEmpty && $0.key != "f" }.map { ($0.key, $0.value) })
        await server.shutdown()
    }

    /// The parameters that change a point layer's answer are applied: each answer equals one computed here from the rows.
    @Test func appliedParametersChangeTheAnswer() async throws {
        let server = try await startConformanceServer()
        let rows = pointRows()
        // geometryPrecision: coordinates rounded half away from zero.
        let precise = try await query(server, [("where", "id <= 20"), ("outFields", "id"), ("geometryPrecision", "2"), ("orderByFields", "id")])
        let rounded = (precise["features"]?.arrayValue ?? []).map { [$0["geometry"]?["x"]?.doubleValue ?? .nan, $0["geometry"]?["y"]?.doubleValue ?? .nan] }
        #expect(rounded == rows.prefix(20).map { [($0.lon * 100).rounded(.toNearestOrAwayFromZero) / 100, ($0.lat * 100).rounded(.toNearestOrAwayFromZero) / 100] })
        // quantizationParameters: integers on the grid, with the transform.
        let grid = try await query(server, [("where", "id <= 20"), ("outFields", "id"), ("orderByFields", "id"),
                                            ("quantizationParameters", #"{"mode":"view","originPosition":"upperLeft","tolerance":0.01,"extent":{"xmin":-123,"ymin":45,"xmax":-122,"ymax":46}}"#)])
        let cells = (grid["features"]?.arrayValue ?? []).map { [$0["geometry"]?["x"]?.intValue ?? -1, $0["geometry"]?["y"]?.intValue ?? -1] }
        #expect(cells == rows.prefix(20).map { [Int64((($0.lon + 123) / 0.01).rounded()), Int64(((46 - $0.lat) / 0.01).rounded())] })
        #expect(grid["transform"]?["translate"]?.arrayValue?.prefix(2).map(\.doubleValue) == [-123, 46])
        // resultType: pages of the advertised standard and tile record counts.
        let description = try await get(server.layerURL("Points", kind: .featureServer) + "?f=json").json
        let standard = try #require(description["standardMaxRecordCount"]?.intValue), tile = try #require(description["tileMaxRecordCount"]?.intValue)
        #expect(description["advancedQueryCapabilities"]?["supportsQueryWithResultType"] == .bool(true))
        for (type, size) in [("standard", standard), ("tile", tile), ("none", 50)] {
            let page = try await query(server, [("resultType", type), ("outFields", "id")])
            #expect(page["features"]?.arrayValue?.count == min(Int(size), pointCount), "\(type)")
            #expect(page["exceededTransferLimit"] == .bool(Int(size) < pointCount))
        }
        // distance + units: a geodesic buffer around a point, checked against a haversine written here.
        let centre = (x: -122.6, y: 45.55)
        func metres(_ lon: Double, _ lat: Double) -> Double {
            let r = Double.pi / 180, dLat = (lat - centre.y) * r, dLon = (lon - centre.x) * r
            let a = sin(dLat / 2) * sin(dLat / 2) + cos(centre.y * r) * cos(lat * r) * sin(dLon / 2) * sin(dLon / 2)
            return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
        }
        for distance in [500.0, 1500.0, 4000.0] {
            let near = try await query(server, [("geometry", "\(centre.x),\(centre.y)"), ("geometryType", "esriGeometryPoint"), ("distance", "\(distance)"),
                                                ("units", "esriSRUnit_Meter"), ("returnIdsOnly", "true")])
            let expected = rows.filter { metres($0.lon, $0.lat) <= distance }.map { Int64($0.id) }
            #expect((near["objectIds"]?.arrayValue ?? []).compactMap(\.intValue).sorted() == expected, "\(distance) m")
            #expect(!expected.isEmpty)
        }
        // A polygon geometry: an L of two rectangles, so the oracle is two box tests.
        let (a, b) = ((xmin: -122.70, ymin: 45.50, xmax: -122.55, ymax: 45.56), (xmin: -122.70, ymin: 45.56, xmax: -122.62, ymax: 45.62))
        let ring = "[[\(a.xmin),\(a.ymin)],[\(a.xmin),\(b.ymax)],[\(b.xmax),\(b.ymax)],[\(b.xmax),\(a.ymax)],[\(a.xmax),\(a.ymax)],[\(a.xmax),\(a.ymin)],[\(a.xmin),\(a.ymin)]]"
        let inL = try await query(server, [("geometry", "{\"rings\":[\(ring)],\"spatialReference\":{\"wkid\":4326}}"), ("geometryType", "esriGeometryPolygon"),
                                           ("returnIdsOnly", "true")])
        func inBox(_ row: (id: Int, name: String, population: Int, lon: Double, lat: Double), _ box: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)) -> Bool {
            row.lon >= box.xmin && row.lon <= box.xmax && row.lat >= box.ymin && row.lat <= box.ymax
        }
        let expectedL = rows.filter { inBox($0, a) || inBox($0, b) }.map { Int64($0.id) }
        #expect((inL["objectIds"]?.arrayValue ?? []).compactMap(\.intValue).sorted() == expectedL)
        #expect(!expectedL.isEmpty && expectedL.count < rows.filter { inBox($0, (a.xmin, a.ymin, a.xmax, b.ymax)) }.count)
        // returnIdsOnly with returnCountOnly: the count.
        let both = try await query(server, [("where", "id <= 77"), ("returnIdsOnly", "true"), ("returnCountOnly", "true")])
        #expect(both["count"] == .int(77) && both["objectIds"] == nil)
        // returnExtentOnly (with and without the count), advertised.
        let extent = try await query(server, [("where", "name = 'site3'"), ("returnExtentOnly", "true"), ("returnCountOnly", "true")])
        let chosen = rows.filter { $0.name == "site3" }
        #expect(extent["count"] == .int(Int64(chosen.count)))
        #expect(extent["extent"]?["xmin"]?.doubleValue == chosen.map(\.lon).min() && extent["extent"]?["ymax"]?.doubleValue == chosen.map(\.lat).max())
        #expect(description["advancedQueryCapabilities"]?["supportsReturningQueryExtent"] == .bool(true))
        // text: the display field contains it.
        let text = try await query(server, [("text", "site1"), ("returnCountOnly", "true")])
        #expect(text["count"] == .int(Int64(rows.filter { $0.name.contains("site1") }.count)))
        // having (and its alias havingClause): groups whose count passes, counted here.
        let statistics = #"[{"statisticType":"count","onStatisticField":"id","outStatisticFieldName":"n"}]"#
        var sizes: [String: Int] = [:]
        for row in rows { sizes[row.name, default: 0] += 1 }
        for name in ["having", "havingClause"] {
            let kept = try await query(server, [("outStatistics", statistics), ("groupByFieldsForStatistics", "name"), (name, "COUNT(id) > 34")])
            let names = (kept["features"]?.arrayValue ?? []).compactMap { $0["attributes"]?["name"]?.stringValue }.sorted()
            #expect(names == sizes.filter { $0.value > 34 }.keys.sorted(), "\(name)")
            #expect(!names.isEmpty && names.count < sizes.count)
        }
        let bogus = try await get(server.layerURL("Points") + "/query?" + PercentEncoding.query([("f", "json"), ("outStatistics", statistics), ("having", "bogus((")]))
        #expect(bogus.status == 400 && bogus.response.text.contains("'having' parameter is invalid"))
        await server.shutdown()
    }

    /// The service and layer resources clients probe, with no null members anywhere.
    @Test func serviceAndLayerResources() async throws {
        let server = try await startConformanceServer()
        let info = try await get("\(server.httpBase)/arcgis/rest/info?f=json")
        #expect(info.status == 200 && info.json["currentVersion"]?.doubleValue != nil && info.json["authInfo"]?["isTokenBasedSecurity"] == .bool(false))
        let service = server.layerURL("Points", kind: .featureServer).dropLast(2)
        let root = try await get(service + "?f=json")
        #expect(root.json["layers"]?.arrayValue?.first?["geometryType"] == .string("esriGeometryPoint"))
        let layers = try await get(service + "/layers?f=json")
        #expect(layers.json["layers"]?.arrayValue?.first?["fields"] != nil)
        let point = try await get(server.layerURL("Points", kind: .featureServer) + "?f=json").json
        let table = try await get(server.layerURL("Counties", kind: .featureServer) + "?f=json").json
        let tableRoot = try await get(server.layerURL("Counties", kind: .featureServer).dropLast(2) + "?f=json").json
        for (name, value) in [("info", info.json), ("root", root.json), ("layers", layers.json), ("point layer", point), ("table", table), ("table root", tableRoot)] {
            #expect(nullMembers(value).isEmpty, "\(name): \(nullMembers(value))")
        }
        #expect(table["geometryType"] == nil && table["type"] == .string("Table") && point["timeInfo"] == nil && table["extent"] == nil)
        // The header that is not a field name became a valid name, with the header as its alias.
        let renamed = point["fields"]?.arrayValue?.first { $0["alias"]?.stringValue == "Population Estimate, 2013" }
        #expect(renamed?["name"] == .string("Population_Estimate_2013"))
        let named = try await query(server, [("where", "Population_Estimate_2013 > 1238"), ("outFields", "Population_Estimate_2013")])
        #expect(named["features"]?.arrayValue?.compactMap { $0["attributes"]?["Population_Estimate_2013"]?.intValue } == [1239, 1240])
        await server.shutdown()
    }

    /// A token is accepted as `token=` and as `X-Esri-Authorization: Bearer …`; missing is 499, wrong 498.
    @Test func tokensInParameterAndHeader() async throws {
        let server = try await startConformanceServer { $0.token = "conformance-token" }
        let url = server.layerURL("Points") + "/query?f=json&returnCountOnly=true"
        #expect(try await get(url).json["error"]?["code"] == .int(499))
        #expect(try await get(url + "&token=wrong").json["error"]?["code"] == .int(498))
        #expect(try await get(url + "&token=conformance-token").json["count"] == .int(Int64(pointCount)))
        #expect(try await get(url, headers: ["X-Esri-Authorization": "Bearer conformance-token"]).json["count"] == .int(Int64(pointCount)))
        #expect(try await get(url, headers: ["Authorization": "Bearer conformance-token"]).json["count"] == .int(Int64(pointCount)))
        #expect(try await get(url, headers: ["X-Esri-Authorization": "Bearer wrong"]).json["error"]?["code"] == .int(498))
        #expect(try await get(server.layerURL("Points") + "?f=json", headers: ["X-Esri-Authorization": "Bearer conformance-token"]).json["fields"] != nil)
        // /arcgis/rest/info needs no token and says one is used.
        #expect(try await get("\(server.httpBase)/arcgis/rest/info?f=json").json["authInfo"]?["isTokenBasedSecurity"] == .bool(true))
        await server.shutdown()
    }

    /// CORS: preflights answered 204 with methods and headers (X-Esri-Authorization among them), answers carry the origin; a
    /// restricted server gives an unlisted origin nothing and refuses its preflight.
    @Test func crossOriginRequests() async throws {
        let server = try await startConformanceServer()
        let target = "/arcgis/rest/services/Points/MapServer/0/query?f=json&returnCountOnly=true"
        let preflight = try await rawExchange(port: server.port, method: "OPTIONS", target: target, headers: [
            ("Origin", "https://apps.example.com"), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "x-esri-authorization, x-custom")])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-origin"] == "https://apps.example.com")
        #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
        let allowed = preflight.headers["access-control-allow-headers"]?.lowercased() ?? ""
        #expect(allowed.contains("x-esri-authorization") && allowed.contains("x-custom"))
        let simple = try await rawExchange(port: server.port, method: "GET", target: target, headers: [("Origin", "https://apps.example.com")])
        #expect(simple.status == 200 && simple.headers["access-control-allow-origin"] == "https://apps.example.com" && simple.headers["vary"] == "Origin")
        #expect(try await rawExchange(port: server.port, method: "GET", target: target, headers: []).headers["access-control-allow-origin"] == "*")
        await server.shutdown()

        let restricted = try await startConformanceServer { $0.cors = try! CORSPolicy.parse("https://apps.example.com") }
        let listed = try await rawExchange(port: restricted.port, method: "GET", target: target, headers: [("Origin", "https://apps.example.com")])
        #expect(listed.headers["access-control-allow-origin"] == "https://apps.example.com")
        let unlisted = try await rawExchange(port: restricted.port, method: "GET", target: target, headers: [("Origin", "https://evil.example.net")])
        #expect(unlisted.status == 200 && unlisted.headers["access-control-allow-origin"] == nil)
        let refused = try await rawExchange(port: restricted.port, method: "OPTIONS", target: target, headers: [("Origin", "https://evil.example.net")])
        #expect(refused.status == 403)
        #expect(throws: SimulatorError.corsOrigin("apps.example.com/path")) { _ = try CORSPolicy.parse("apps.example.com/path") }
        await restricted.shutdown()
    }

    /// GP job resources: submitJob, the job, its result, and the result map service describing what it serves (polygons).
    @Test func geoprocessingJobResources() async throws {
        let lines = ["occurred,east,north"] + (0..<300).map { i in
            "\(883_612_800_000 + Int64(i) * 3_600_000),\(7_630_000 + Double((i * 7919) % 30_000)),\(670_000 + Double((i * 104_729) % 30_000))"
        }
        var configuration = SimulatorConfiguration()
        configuration.port = 0
        configuration.hotSpotServices = [HotSpotServiceSpecification(name: "Calls", path: try writeTemporary(lines),
                                                                     options: FeatureLoadOptions(mapping: FeatureColumnMapping(x: "east", y: "north", time: "occurred", wkid: 2913)))]
        let server = try await SimulatorServer.start(configuration)
        let task = server.hotSpotTaskURL("Calls")
        let submitted = try await get(task + "/submitJob?f=json&Query=1%3D1")
        let jobID = try #require(submitted.json["jobId"]?.stringValue)
        var status = submitted.json["jobStatus"]?.stringValue
        var polls = 0
        while status != "esriJobSucceeded" && status != "esriJobFailed" && polls < 10_000 {
            status = try await get(task + "/jobs/\(jobID)?f=json").json["jobStatus"]?.stringValue
            polls += 1
            await Task.yield()
        }
        #expect(status == "esriJobSucceeded")
        let job = try await get(task + "/jobs/\(jobID)?f=json").json
        #expect(job["results"]?["Output_Features"]?["paramUrl"] == .string("results/Output_Features"))
        let result = try await get(task + "/jobs/\(jobID)/results/Output_Features?f=json").json
        let features = result["value"]?["features"]?.arrayValue ?? []
        let mapLayer = "\(server.httpBase)/arcgis/rest/services/Calls/MapServer/jobs/\(jobID)/0"
        let layer = try await get(mapLayer + "?f=json").json
        #expect(layer["geometryType"] == result["value"]?["geometryType"])
        #expect(nullMembers(layer).isEmpty, "\(nullMembers(layer))")
        let served = try await get(mapLayer + "/query?f=json&where=1%3D1&outFields=*&orderByFields=OBJECTID").json
        #expect(served["geometryType"] == result["value"]?["geometryType"])
        #expect(served["features"]?.arrayValue?.map { $0["geometry"] } == features.map { $0["geometry"] })
        #expect(!features.isEmpty)
        await server.shutdown()
    }
}
