import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamLocking
import EntityStreamProjection
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// Writes `lines` to a fresh temporary file with extension `ext`.
func writeTemporary(_ lines: [String], ext: String = "csv") throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("layer-\(UUID().uuidString).\(ext)").path
    try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Starts a simulator serving `layers` on a free port.
func startLayers(_ layers: [LayerSpecification], configure: (inout SimulatorConfiguration) -> Void = { _ in }) async throws -> SimulatorServer {
    var configuration = SimulatorConfiguration()
    configuration.port = 0
    configuration.layers = layers
    configure(&configuration)
    return try await SimulatorServer.start(configuration)
}

/// Every page of `query`, in order.
func allPages(_ client: FeatureLayerClient, _ query: FeatureQuery) async throws -> [FeatureSetPage] {
    var pages: [FeatureSetPage] = []
    for try await page in client.pages(query) { pages.append(page) }
    return pages
}

/// The values of attribute `name` of every feature of `pages`, in order.
func values(_ pages: [FeatureSetPage], _ name: String) -> [AttributeValue] {
    pages.flatMap { page in
        page.features.map { feature in page.schema.index(ofField: name).map { feature.attribute($0) } ?? .null }
    }
}

/// A CSV of `count` synthetic points: `seq` 1…count, `speed` = seq % 13, a time one minute apart from 2000-09-01T00:00Z, lon/lat on a grid.
func syntheticPoints(_ count: Int) -> [String] {
    ["seq,speed,when,lon,lat"] + (1...count).map { seq in
        let minutes = seq - 1
        let when = String(format: "2000-09-01T%02d:%02d:00Z", minutes / 60, minutes % 60)
        return "\(seq),\(seq % 13),\(when),\(-80.0 + Double(seq % 10)),\(20.0 + Double(seq / 10))"
    }
}

/// Epoch milliseconds of an ISO-8601 UTC text, by Foundation (independent of the code under test).
func epochMilliseconds(_ text: String) -> Int64 {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { return .min }
    return Int64((date.timeIntervalSince1970 * 1000).rounded())
}

@Suite("Feature layers served by the simulator, read by the client", .bounded(.io))
struct FeatureLayerTests {
    static let hurricanes = "hurdat2/hurdat2_2000_season_flat.csv"

    /// The Esri sample's query (2000-09-01 → 2000-09-22, outFields *) returns exactly the season's rows whose time is in that inclusive extent.
    @Test(.enabled(if: SharedData.has(FeatureLayerTests.hurricanes),
                                                     "shared data absent: set ENTITYSTREAM_SHARED_DATA or provide ../shared/data"))
    func hurricaneSampleQuery() async throws {
        // Oracle: the CSV read here with Foundation, no project code.
        let lines = try SharedData.text(Self.hurricanes).split(whereSeparator: \.isNewline).map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let idColumn = try #require(header.firstIndex(of: "storm_id")), timeColumn = try #require(header.firstIndex(of: "datetime_utc"))
        let start = epochMilliseconds("2000-09-01T00:00:00Z"), end = epochMilliseconds("2000-09-22T00:00:00Z")
        #expect(start == 967_766_400_000 && end == 969_580_800_000)
        var expected: [String] = []
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let time = epochMilliseconds(fields[timeColumn])
            if time >= start && time <= end { expected.append("\(fields[idColumn])@\(time)") }
        }
        #expect(expected.count > 50)

        let server = try await startLayers([LayerSpecification(name: "Hurricanes", path: SharedData.path(Self.hurricanes))]) { $0.maxRecordCount = 50 }
        let client = try FeatureLayerClient(layerURL: server.layerURL("Hurricanes"))
        let description = try await client.description()
        #expect(description.timeInfo?.startTimeField == "datetime_utc")
        #expect(description.objectIDField == "OBJECTID")
        let query = FeatureQuery(time: try TimeExtent.parse("2000-09-01,2000-09-22"))
        #expect(query.parameters.contains { $0 == ("time", "967766400000,969580800000") })
        let pages = try await allPages(client, query)
        let got = zip(values(pages, "storm_id"), values(pages, "datetime_utc")).map { id, time -> String in
            guard case .string(let storm) = id, case .date(let ms) = time else { return "?" }
            return "\(storm)@\(ms)"
        }
        #expect(got.sorted() == expected.sorted())
        #expect(pages.count == (expected.count + 49) / 50)
        #expect(pages.allSatisfy { $0.schema.fields.count == header.count + 1 })
        #expect(try await client.count(query) == expected.count)
        await server.shutdown()
    }

    /// Rows exactly at the start and end of the extent are included; open ends and instants work end to end.
    @Test func boundariesOpenEndsAndInstants() async throws {
        let path = try writeTemporary(["id,t,lon,lat",
                                       "1,2000-09-01T00:00:00Z,0,0", "2,2000-09-01T00:00:00.001Z,0,0", "3,2000-09-21T23:59:59.999Z,0,0",
                                       "4,2000-09-22T00:00:00Z,0,0", "5,2000-09-22T00:00:00.001Z,0,0", "6,2000-08-31T23:59:59.999Z,0,0", "7,,0,0"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "Edges", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("Edges", kind: .featureServer))
        func ids(_ extent: String) async throws -> [AttributeValue] {
            values(try await allPages(client, FeatureQuery(time: try TimeExtent.parse(extent))), "id")
        }
        #expect(try await ids("2000-09-01T00:00:00Z,2000-09-22T00:00:00Z") == [.int(1), .int(2), .int(3), .int(4)])
        #expect(try await ids("2000-09-01T00:00:00Z,null") == [.int(1), .int(2), .int(3), .int(4), .int(5)])
        #expect(try await ids("null,2000-09-01T00:00:00Z") == [.int(1), .int(6)])
        #expect(try await ids("2000-09-22T00:00:00Z") == [.int(4)])
        #expect(try await ids("null,null") == (1...7).map { .int(Int64($0)) })
        await server.shutdown()
    }

    /// Interval features (start and end fields) overlap the extent when start ≤ extent end and end ≥ extent start.
    @Test func intervalFeatures() async throws {
        let path = try writeTemporary(["id,from,to",
                                       "1,2000-01-01,2000-01-09", "2,2000-01-01,2000-01-10", "3,2000-01-12,2000-01-13",
                                       "4,2000-01-01,2000-02-01", "5,2000-01-20,2000-01-25", "6,2000-01-21,2000-01-25"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        var specification = LayerSpecification(name: "Spans", path: path)
        specification.options.mapping = try FeatureColumnMapping(parsing: "time=from,end=to")
        let server = try await startLayers([specification])
        let client = try FeatureLayerClient(layerURL: server.layerURL("Spans"))
        let description = try await client.description()
        #expect(description.type == "Table")
        #expect(description.timeInfo?.endTimeField == "to")
        let pages = try await allPages(client, FeatureQuery(time: try TimeExtent.parse("2000-01-10,2000-01-20")))
        #expect(values(pages, "id") == [.int(2), .int(3), .int(4), .int(5)])
        await server.shutdown()
    }

    /// With maxRecordCount 7 the client pages by resultOffset: every row exactly once, in object-id order, pages of at most 7; returnCountOnly agrees.
    @Test func pagingReturnsEveryRowOnce() async throws {
        let path = try writeTemporary(syntheticPoints(50))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "P", path: path)]) { $0.maxRecordCount = 7 }
        let client = try FeatureLayerClient(layerURL: server.layerURL("P"))
        var pages: [FeatureSetPage] = []
        let summary = try await client.query(FeatureQuery(whereClause: "speed <> 5")) { pages.append($0) }
        let expected = (1...50).filter { $0 % 13 != 5 }.map { AttributeValue.int(Int64($0)) }
        #expect(values(pages, "seq") == expected)
        #expect(pages.allSatisfy { $0.features.count <= 7 })
        #expect(pages.map(\.index) == Array(0..<pages.count))
        #expect(pages.dropLast().allSatisfy(\.exceededTransferLimit) && pages.last?.exceededTransferLimit == false)
        #expect(summary == FeatureQuerySummary(featureCount: expected.count, pageCount: (expected.count + 6) / 7,
                                               requestCount: (expected.count + 6) / 7, strategy: .pages(size: 7)))
        #expect(try await client.count(FeatureQuery(whereClause: "speed <> 5")) == expected.count)
        // A window of the whole result: skip 5, take 10.
        let window = try await allPages(client, FeatureQuery(whereClause: "speed <> 5", resultOffset: 5, resultRecordCount: 10))
        #expect(values(window, "seq") == Array(expected[5..<15]))
        await server.shutdown()
    }

    /// When the layer cannot page, the client asks for the ids and fetches them in batches of at most maxRecordCount, every row once, in order (also ordered DESC).
    @Test func noPaginationFallsBackToObjectIDBatches() async throws {
        let path = try writeTemporary(syntheticPoints(30))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "Old", path: path)]) {
            $0.maxRecordCount = 7
            $0.layerPagination = false
        }
        let client = try FeatureLayerClient(layerURL: server.layerURL("Old"))
        #expect(try await client.description().supportsPagination == false)
        var pages: [FeatureSetPage] = []
        let summary = try await client.query(FeatureQuery()) { pages.append($0) }
        #expect(values(pages, "seq") == (1...30).map { .int(Int64($0)) })
        #expect(pages.map(\.features.count) == [7, 7, 7, 7, 2])
        #expect(summary.strategy == .objectIDBatches(size: 7))
        #expect(summary.requestCount == 6)
        let descending = try await allPages(client, FeatureQuery(orderBy: [OrderByField(field: "speed", descending: true)]))
        let speeds = values(descending, "speed").compactMap { value -> Int64? in if case .int(let v) = value { return v } else { return nil } }
        #expect(speeds.count == 30)
        #expect(speeds == speeds.sorted(by: >))
        // As servers from before pagination did, it ignores paging parameters: the first page again.
        let ignored = try await HTTPClient().get(server.layerURL("Old") + "/query?f=json&outFields=seq&resultOffset=7&resultRecordCount=2")
        #expect(ignored.status == 200)
        let page = try FeatureSetReader.page(ignored.body)
        #expect(page.features.count == 7 && page.exceededTransferLimit)
        #expect(page.features.first?.attribute(page.schema.index(ofField: "seq") ?? -1) == .int(1))
        await server.shutdown()
    }

    /// f=geojson answers a FeatureCollection in WGS84 with exceededTransferLimit in its properties.
    @Test func geoJSONOutput() async throws {
        let path = try writeTemporary(syntheticPoints(5))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "G", path: path)]) { $0.maxRecordCount = 3 }
        let response = try await HTTPClient().get(server.layerURL("G") + "/query?where=1%3D1&outFields=seq&f=geojson")
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("application/geo+json") == true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        #expect((object["properties"] as? [String: Any])?["exceededTransferLimit"] as? Bool == true)
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == 3)
        let geometry = try #require(features.first?["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [-79.0, 20.0])
        #expect((features.first?["properties"] as? [String: Any])?["seq"] as? Int == 1)
        await server.shutdown()
    }

    /// An envelope in Web Mercator (inSR) selects the WGS84 points inside it, and outSR 3857 returns Web Mercator coordinates.
    @Test func envelopeWithInSRAndOutSR() async throws {
        let path = try writeTemporary(syntheticPoints(40))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "E", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("E"))
        // x = R·λ·π/180; y = R·ln(tan(π/4 + φ/2)), R = 6378137 (the test's own formula).
        let radius = 6_378_137.0
        func mercator(_ lon: Double, _ lat: Double) -> (Double, Double) {
            (radius * lon * .pi / 180, radius * log(tan(.pi / 4 + lat * .pi / 360)))
        }
        let (xmin, ymin) = mercator(-78.5, 20.5), (xmax, ymax) = mercator(-75.5, 22.5)
        let query = FeatureQuery(geometry: Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: 3857), outSpatialReference: 3857)
        let pages = try await allPages(client, query)
        let expected = (1...40).filter { seq in
            let lon = -80.0 + Double(seq % 10), lat = 20.0 + Double(seq / 10)
            return lon >= -78.5 && lon <= -75.5 && lat >= 20.5 && lat <= 22.5
        }.map { AttributeValue.int(Int64($0)) }
        #expect(values(pages, "seq") == expected)
        #expect(pages.first?.spatialReference == 3857)
        for feature in pages.flatMap(\.features) {
            guard case .double(let lon) = feature.attribute(4), case .double(let lat) = feature.attribute(5), let point = feature.geometry else {
                Issue.record("no coordinates")
                continue
            }
            let (x, y) = mercator(lon, lat)
            #expect(abs(point.x - x) < 1e-6 && abs(point.y - y) < 1e-6)
            #expect(point.wkid == 3857)
        }
        await server.shutdown()
    }

    /// A layer in Oregon North feet (EPSG:2913; points the test made from known NAD83(HARN) longitudes/latitudes
    /// with the Lambert formulas) answers outSR 4152 with those longitudes/latitudes, f=geojson in WGS84 (within the
    /// 1.3 m datum shift), outSR given as {"wkt":…} with the WKT's own reference, and an envelope in degrees (inSR)
    /// with exactly the points inside it; an outSR PROJ does not know is a 400 naming it.
    @Test func statePlaneLayerThroughPROJ() async throws {
        var rng = SplitMix64(seed: 2913)
        var known: [(seq: Int, longitude: Double, latitude: Double)] = []
        var lines = ["seq,x,y"]
        for seq in 1...60 {
            let longitude = -123 + rng.nextDouble(), latitude = 45 + rng.nextDouble()
            let feet = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            known.append((seq, longitude, latitude))
            lines.append("\(seq),\(feet.x),\(feet.y)")
        }
        let path = try writeTemporary(lines)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "P", path: path,
                                                               options: FeatureLoadOptions(mapping: FeatureColumnMapping(x: "x", y: "y", wkid: 2913)))])
        let client = try FeatureLayerClient(layerURL: server.layerURL("P"))
        let degrees = try await allPages(client, FeatureQuery(outSpatialReference: 4152))
        #expect(degrees.first?.spatialReference == 4152)
        for page in degrees {
            for feature in page.features {
                guard case .int(let seq) = feature.attribute(page.schema.index(ofField: "seq") ?? 0), let point = feature.geometry,
                      let expected = known.first(where: { $0.seq == Int(seq) }) else { Issue.record("no point"); continue }
                #expect(abs(point.x - expected.longitude) < 1e-8 && abs(point.y - expected.latitude) < 1e-8)
            }
        }
        let box = Envelope(xmin: -122.8, ymin: 45.2, xmax: -122.3, ymax: 45.8, wkid: 4152)
        let inside = try await allPages(client, FeatureQuery(geometry: box, outFields: ["seq"]))
        let expected = known.filter { $0.longitude >= box.xmin && $0.longitude <= box.xmax && $0.latitude >= box.ymin && $0.latitude <= box.ymax }
        #expect(values(inside, "seq").compactMap { if case .int(let seq) = $0 { Int(seq) } else { nil } }.sorted() == expected.map(\.seq))
        #expect(!expected.isEmpty && expected.count < known.count)

        let geojson = try await HTTPClient().get(server.layerURL("P") + "/query?where=seq%3D1&outFields=seq&f=geojson")
        #expect(geojson.status == 200)
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(geojson.body)) as? [String: Any])
        let coordinates = try #require(((collection["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(abs(coordinates[0] - known[0].longitude) < 3e-5 && abs(coordinates[1] - known[0].latitude) < 3e-5)

        let wkt = #"GEOGCS["GCS_North_American_1983_HARN",DATUM["D_North_American_1983_HARN",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#
        let parameter = #"{"wkt":"\#(wkt.replacingOccurrences(of: "\"", with: "\\\""))"}"#
        let encoded = parameter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let custom = try await HTTPClient().get(server.layerURL("P") + "/query?where=seq%3D1&outFields=seq&outSR=\(encoded)&f=json")
        #expect(custom.status == 200, "\(String(decoding: custom.body, as: UTF8.self))")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(custom.body)) as? [String: Any])
        let reference = try #require(body["spatialReference"] as? [String: Any])
        #expect(reference["wkid"] as? Int == 4152 || reference["wkt"] != nil, "\(reference)")
        let point = try #require(((body["features"] as? [[String: Any]])?.first?["geometry"] as? [String: Any]))
        #expect(abs((point["x"] as? Double ?? 0) - known[0].longitude) < 1e-8)

        let bad = try await HTTPClient().get(server.layerURL("P") + "/query?where=1%3D1&outSR=99999&f=json")
        #expect(String(decoding: bad.body, as: UTF8.self).contains("unknown spatial reference wkid 99999"))
        await server.shutdown()
    }

    /// orderByFields DESC orders the whole result across pages, ties by object id.
    @Test func orderByDescendingAcrossPages() async throws {
        let path = try writeTemporary(syntheticPoints(40))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "O", path: path)]) { $0.maxRecordCount = 6 }
        let client = try FeatureLayerClient(layerURL: server.layerURL("O"))
        let pages = try await allPages(client, FeatureQuery(outFields: ["speed"], orderBy: [OrderByField(field: "speed", descending: true)]))
        let sequence: [Int64] = Array(1...40)
        let sorted = sequence.sorted { (a: Int64, b: Int64) -> Bool in
            let (speedA, speedB) = (a % 13, b % 13)
            return speedA != speedB ? speedA > speedB : a < b
        }
        let expected = sorted.map { AttributeValue.int($0) }
        #expect(values(pages, "OBJECTID") == expected)
        #expect(pages.first?.schema.fields.map(\.name) == ["OBJECTID", "speed"])
        await server.shutdown()
    }

    /// A CSV without coordinates is served as a table: listed under tables, no geometry type, features without geometry.
    @Test func tablesWithoutGeometry() async throws {
        let path = try writeTemporary(["State,County,Diabetes", "Alabama,Autauga,9.9", "Alabama,Baldwin,8.5", "Texas,Travis,7.1"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "Counties", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("Counties"))
        let description = try await client.description()
        #expect(description.type == "Table")
        #expect(description.geometryType == nil)
        #expect(description.isTable)
        let root = try FeatureServiceRoot(json: try await HTTPClient().get("\(server.httpBase)/arcgis/rest/services/Counties/MapServer?f=json").body, kind: .mapServer)
        #expect(root.layers.isEmpty)
        #expect(root.tables.map(\.name) == ["Counties"])
        let pages = try await allPages(client, FeatureQuery(whereClause: "State = 'Alabama'"))
        #expect(values(pages, "County") == [.string("Autauga"), .string("Baldwin")])
        #expect(pages.flatMap(\.features).allSatisfy { $0.geometry == nil })
        #expect(pages.first?.geometryType == nil)
        let listing = try JSONParser.parse(try await HTTPClient().get("\(server.httpBase)/arcgis/rest/services").body)
        #expect(listing["services"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["FeatureServer", "MapServer"])
        await server.shutdown()
    }

    /// With --token a layer answers 499 without one and 498 with a wrong one (the client fails clearly, never showing the token); the right one works, and a renewing source recovers once.
    @Test func tokens() async throws {
        let path = try writeTemporary(syntheticPoints(3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "Secure", path: path)]) { $0.token = "s3cret-token" }
        func failure(_ source: (any TokenSource)?) async -> FeatureLayerError? {
            var options = FeatureLayerClientOptions()
            options.tokenSource = source
            guard let client = try? FeatureLayerClient(layerURL: server.layerURL("Secure"), options: options) else { return nil }
            do { _ = try await client.description(); return nil } catch { return error }
        }
        guard case .request(.tokenRejected(let required, false))? = await failure(nil) else { Issue.record("no 499"); return }
        #expect(required.code == 499)
        let wrong = await failure(StaticTokenSource("guess-token"))
        guard case .request(.tokenRejected(let invalid, false))? = wrong else { Issue.record("no 498"); return }
        #expect(invalid.code == 498)
        #expect(wrong?.description.contains("guess-token") == false)
        #expect(await failure(StaticTokenSource("s3cret-token")) == nil)

        let renewing = RenewingTokens(first: "stale-token", then: "s3cret-token")
        var options = FeatureLayerClientOptions()
        options.tokenSource = renewing
        let statuses = LockedStatuses()
        options.onStatus = { statuses.append($0) }
        let client = try FeatureLayerClient(layerURL: server.layerURL("Secure"), options: options)
        let pages = try await allPages(client, FeatureQuery())
        #expect(values(pages, "seq") == [.int(1), .int(2), .int(3)])
        #expect(renewing.renewals == 1)
        #expect(statuses.all.map(\.status) == [.connecting, .connected])
        #expect(statuses.all.allSatisfy { $0.url == server.layerURL("Secure") })
        // A token in the URL is used, and never shown.
        let inURL = try FeatureLayerClient(layerURL: server.layerURL("Secure") + "?token=s3cret-token&f=pjson")
        #expect(try await inURL.count(FeatureQuery()) == 3)
        #expect(inURL.displayURL == server.layerURL("Secure"))
        await server.shutdown()
    }
}

extension FeatureLayerTests {
    /// With a certificate the layers are served over https; the client reads them when it accepts the self-signed certificate, and says why not otherwise.
    @Test func layersOverTLS() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        let path = try writeTemporary(syntheticPoints(4))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "S", path: path)]) {
            $0.tls = certificate.tlsFiles
        }
        #expect(server.layerURL("S").hasPrefix("https://"))
        var options = FeatureLayerClientOptions()
        options.http.allowSelfSignedCertificates = true
        let client = try FeatureLayerClient(layerURL: server.layerURL("S"), options: options)
        #expect(values(try await allPages(client, FeatureQuery()), "seq") == (1...4).map { .int(Int64($0)) })
        let strict = try FeatureLayerClient(layerURL: server.layerURL("S"))
        var strictError: FeatureLayerError?
        do { _ = try await strict.description() } catch { strictError = error }
        guard case .request(.unreachable(_, let detail))? = strictError else { Issue.record("\(String(describing: strictError))"); return }
        #expect(detail.contains("TLS"))
        await server.shutdown()
    }

    /// A statistics engine plugged into the simulator answers outStatistics queries, and the client reads the answer as one page of attribute rows.
    @Test func statisticsThroughThePluggableEngine() async throws {
        /// Counts the rows per value of the first group-by field (the test's own tiny engine).
        struct GroupCount: FeatureStatisticsEngine {
            func statistics(of table: FeatureTable, rows: [Int], query: FeatureQuery) throws(FeatureQueryError) -> FeatureStatisticsResult {
                guard let group = query.groupByFieldsForStatistics.first, let field = table.schema.index(ofField: group),
                      let statistic = query.outStatistics?.first else { throw FeatureQueryError.statisticsUnsupported(parameter: "groupByFieldsForStatistics") }
                var counts: [String: Int64] = [:]
                for row in rows { if case .string(let key) = table.value(row: row, field: field) { counts[key, default: 0] += 1 } }
                return FeatureStatisticsResult(fields: [Field(name: group, type: .string), Field(name: statistic.resolvedOutputName, type: .integer)],
                                               rows: counts.keys.sorted().map { [.string($0), .int(counts[$0] ?? 0)] })
            }
        }
        let path = try writeTemporary(["State,County", "Alabama,Autauga", "Alabama,Baldwin", "Texas,Travis", "Utah,Salt Lake"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "C", path: path)]) { $0.statisticsEngine = GroupCount() }
        let client = try FeatureLayerClient(layerURL: server.layerURL("C"))
        #expect(try await client.description().supportsStatistics)
        var query = FeatureQuery(whereClause: "State <> 'Utah'")
        query.outStatistics = [StatisticDefinition(type: .count, field: "County")]
        query.groupByFieldsForStatistics = ["State"]
        let pages = try await allPages(client, query)
        #expect(pages.count == 1)
        #expect(values(pages, "State") == [.string("Alabama"), .string("Texas")])
        #expect(values(pages, "COUNT_County") == [.int(2), .int(1)])
        await server.shutdown()
    }
}

/// A token source that hands out `first`, and `then` when asked to renew; counts renewals.
final class RenewingTokens: TokenSource, Sendable {
    private let state: LockedState<(current: String, next: String, renewals: Int)>
    init(first: String, then: String) { state = LockedState((first, then, 0)) }
    var renewals: Int { state.withLock { $0.renewals } }
    func token() async -> String? { state.withLock { $0.current } }
    func renewToken(rejected: String?) async -> TokenRenewal {
        .renewed(state.withLock { state in
            state = (state.next, state.next, state.renewals + 1)
            return state.current
        })
    }
}

/// Status changes collected from a callback.
final class LockedStatuses: Sendable {
    private let changes = LockedState<[ConnectionStatusChange]>([])
    func append(_ change: ConnectionStatusChange) { changes.withLock { $0.append(change) } }
    var all: [ConnectionStatusChange] { changes.withLock { $0 } }
}
