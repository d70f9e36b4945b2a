import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamProjection
import EntityStreamWhere
import EntityStreamFiles

/// One synthetic row, as the test knows it (the oracle's side).
private struct Row {
    var id: Int64
    var x: Double?
    var y: Double?
    var start: Int64?
    var end: Int64?
    var speed: Int64?
    var name: String
}

/// A point table of `rows` (OID, start, end, speed, name), in wkid 4326.
private func table(_ rows: [Row], intervals: Bool = false, wkid: Int = 4326, geometry: Bool = true) throws -> FeatureTable {
    let schema = Schema(fields: [Field(name: "OBJECTID", type: .objectID, nullable: false), Field(name: "start", type: .date),
                                 Field(name: "end", type: .date), Field(name: "speed", type: .integer), Field(name: "name", type: .string)])
    var builder = try FeatureTableBuilder(name: "T", schema: schema, objectIDFieldIndex: 0, assignsObjectIDs: false,
                                          geometryType: geometry ? .point : .none, spatialReference: wkid,
                                          startTimeFieldIndex: 1, endTimeFieldIndex: intervals ? 2 : nil)
    for row in rows {
        let point = geometry ? row.x.flatMap { x in row.y.map { Point(x: x, y: $0) } } : nil
        try builder.append(geometry: point, values: [.int(row.id), row.start.map { .date(milliseconds: $0) } ?? .null,
                                                     row.end.map { .date(milliseconds: $0) } ?? .null,
                                                     row.speed.map { .int($0) } ?? .null, .string(row.name)])
    }
    return builder.build()
}

/// `count` random rows with ids in shuffled order, some nulls.
private func randomRows(_ count: Int, seed: UInt64) -> [Row] {
    var rng = SplitMix64(seed: seed)
    var ids = (1...Int64(count)).map { $0 * 3 }
    for i in stride(from: ids.count - 1, to: 0, by: -1) { ids.swapAt(i, rng.next(below: i + 1)) }
    return ids.map { id in
        let start = rng.next(below: 10) == 0 ? nil : Int64(rng.next(below: 100)) * 1000
        return Row(id: id, x: rng.next(below: 12) == 0 ? nil : Double(rng.next(below: 200)) - 100,
                   y: Double(rng.next(below: 160)) - 80, start: start,
                   end: start.map { $0 + Int64(rng.next(below: 20)) * 1000 },
                   speed: rng.next(below: 8) == 0 ? nil : Int64(rng.next(below: 50)),
                   name: ["alpha", "Bravo", "charlie", "delta"][rng.next(below: 4)])
    }
}

/// The object ids a query result holds, in order.
private func ids(_ result: FeatureQueryResult) -> [Int64] {
    switch result {
    case .features(let selection): return selection.rows.map { selection.table.objectID(at: $0) }
    case .objectIDs(_, let ids): return ids
    default: return []
    }
}

@Suite("Feature query engine", .bounded)
struct FeatureQueryEngineTests {
    let engine = FeatureQueryEngine(maxRecordCount: 1000)

    /// The time extent includes rows exactly at its start and end, and excludes those just outside; rows without a time never match.
    @Test func boundariesAreInclusive() throws {
        let rows = [999, 1000, 1001, 1999, 2000, 2001].enumerated().map { Row(id: Int64($0.offset + 1), x: 0, y: 0, start: Int64($0.element), speed: 1, name: "a") }
            + [Row(id: 7, x: 0, y: 0, start: nil, speed: 1, name: "a")]
        let layer = try table(rows)
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 1000, end: 2000)), on: layer)) == [2, 3, 4, 5])
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 1000, end: nil)), on: layer)) == [2, 3, 4, 5, 6])
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: nil, end: 1000)), on: layer)) == [1, 2])
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 2000, end: 2000)), on: layer)) == [5])
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 1500, end: 1500)), on: layer)) == [])
        #expect(ids(try engine.run(FeatureQuery(), on: layer)) == [1, 2, 3, 4, 5, 6, 7])
    }

    /// Interval features match when start ≤ query end and end ≥ query start (touching counts), a null end counting as the start.
    @Test func intervalFeatures() throws {
        let rows = [
            Row(id: 1, x: 0, y: 0, start: 0, end: 999, speed: 1, name: "a"),      // ends just before
            Row(id: 2, x: 0, y: 0, start: 0, end: 1000, speed: 1, name: "a"),     // ends at the start
            Row(id: 3, x: 0, y: 0, start: 1500, end: 1600, speed: 1, name: "a"),  // inside
            Row(id: 4, x: 0, y: 0, start: 0, end: 5000, speed: 1, name: "a"),     // spans it
            Row(id: 5, x: 0, y: 0, start: 2000, end: 3000, speed: 1, name: "a"),  // starts at the end
            Row(id: 6, x: 0, y: 0, start: 2001, end: 3000, speed: 1, name: "a"),  // starts just after
            Row(id: 7, x: 0, y: 0, start: 1200, end: nil, speed: 1, name: "a"),   // no end: an instant
        ]
        let layer = try table(rows, intervals: true)
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 1000, end: 2000)), on: layer)) == [2, 3, 4, 5, 7])
        #expect(ids(try engine.run(FeatureQuery(time: try TimeExtent(start: 1550, end: 1550)), on: layer)) == [3, 4])
    }

    /// Where, time, envelope and object ids combined select exactly what a brute-force filter over the rows selects, ordered by object id.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesBruteForce(seed: UInt64) throws {
        let rows = randomRows(400, seed: seed)
        let layer = try table(rows)
        let extent = try TimeExtent(start: 20_000, end: 60_000)
        let box = Envelope(xmin: -50, ymin: -40, xmax: 30, ymax: 40)
        let wanted: Set<Int64> = Set(rows.map(\.id).filter { $0 % 2 == 0 })
        let query = FeatureQuery(whereClause: "speed >= 10 AND name <> 'delta'", objectIDs: Array(wanted) + [999_999], time: extent, geometry: box)
        let expected = rows.filter { row in
            guard let start = row.start, start >= 20_000, start <= 60_000 else { return false }
            guard let x = row.x, let y = row.y, x >= -50, x <= 30, y >= -40, y <= 40 else { return false }
            guard let speed = row.speed, speed >= 10, row.name != "delta" else { return false }
            return wanted.contains(row.id)
        }.map(\.id).sorted()
        #expect(!expected.isEmpty)
        #expect(ids(try engine.run(query, on: layer)) == expected)
        var countQuery = query
        countQuery.returnCountOnly = true
        guard case .count(let count) = try engine.run(countQuery, on: layer) else { Issue.record("no count"); return }
        #expect(count == expected.count)
    }

    /// Paging with a small maxRecordCount returns every matching row exactly once, in order, with exceededTransferLimit on all pages but the last.
    @Test func pagingCoversEveryRowOnce() throws {
        let rows = randomRows(100, seed: 9)
        let layer = try table(rows)
        let small = FeatureQueryEngine(maxRecordCount: 7)
        var collected: [Int64] = []
        var offset = 0
        var flags: [Bool] = []
        while true {
            var query = FeatureQuery(whereClause: "speed IS NOT NULL")
            query.resultOffset = offset
            guard case .features(let page) = try small.run(query, on: layer) else { Issue.record("no page"); return }
            #expect(page.rows.count <= 7)
            collected += page.rows.map { layer.objectID(at: $0) }
            flags.append(page.exceededTransferLimit)
            offset += page.rows.count
            if !page.exceededTransferLimit { break }
        }
        let expected = rows.filter { $0.speed != nil }.map(\.id).sorted()
        #expect(collected == expected)
        #expect(flags.dropLast().allSatisfy { $0 } && flags.last == false)
        // resultRecordCount smaller than maxRecordCount sets the page size; larger is capped.
        guard case .features(let three) = try small.run(FeatureQuery(resultRecordCount: 3), on: layer) else { return }
        #expect(three.rows.count == 3 && three.exceededTransferLimit)
        guard case .features(let capped) = try small.run(FeatureQuery(resultRecordCount: 50), on: layer) else { return }
        #expect(capped.rows.count == 7)
        guard case .features(let last) = try small.run(FeatureQuery(resultOffset: 98, resultRecordCount: 5), on: layer) else { return }
        #expect(last.rows.count == 2 && !last.exceededTransferLimit)
    }

    /// orderByFields DESC sorts by the field (nulls last when descending), ties by object id; ids-only follows the same order.
    @Test func orderByDescending() throws {
        let rows = randomRows(60, seed: 4)
        let layer = try table(rows)
        let query = FeatureQuery(orderBy: [OrderByField(field: "SPEED", descending: true)])
        let expected = rows.sorted { a, b in
            switch (a.speed, b.speed) {
            case let (x?, y?) where x != y: return x > y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return a.id < b.id
            }
        }.map(\.id)
        #expect(ids(try engine.run(query, on: layer)) == expected)
        var idsOnly = query
        idsOnly.returnIDsOnly = true
        #expect(ids(try engine.run(idsOnly, on: layer)) == expected)
        let byName = ids(try engine.run(FeatureQuery(orderBy: [OrderByField(field: "name"), OrderByField(field: "OBJECTID", descending: true)]), on: layer))
        #expect(byName == rows.sorted { ($0.name, -$0.id) < ($1.name, -$1.id) }.map(\.id))
    }

    /// outFields keep the object id and the named fields in schema order; geometry converts to outSR; an envelope in 3857 selects in a 4326 table.
    @Test func outFieldsAndSpatialReferences() throws {
        let layer = try table([Row(id: 1, x: -112, y: 40.55, start: 0, speed: 3, name: "a"), Row(id: 2, x: 10, y: 10, start: 0, speed: 4, name: "b")])
        var query = FeatureQuery(outFields: ["name", "speed"], outSpatialReference: 3857)
        guard case .features(let selection) = try engine.run(query, on: layer) else { Issue.record("no features"); return }
        #expect(selection.fieldIndices == [0, 3, 4])
        #expect(selection.spatialReference == 3857)
        let point = try #require(selection.geometry(at: 0))
        #expect(abs(point.x - -12_467_782.969) < 0.01)
        #expect(abs(point.y - 4_946_191.647) < 0.01)
        query = FeatureQuery(geometry: Envelope(xmin: -12_500_000, ymin: 4_900_000, xmax: -12_400_000, ymax: 5_000_000, wkid: 3857))
        #expect(ids(try engine.run(query, on: layer)) == [1])
        query = FeatureQuery(outFields: [])
        guard case .features(let bare) = try engine.run(query, on: layer) else { return }
        #expect(bare.fieldIndices == [0])
    }

    /// A State Plane table (Oregon North feet, points made from known longitudes/latitudes by the
    /// Lambert formulas written in the test) answers outSR in NAD83(HARN) degrees with those
    /// longitudes/latitudes, f=geojson in WGS84 (within the 1.3 m datum shift), and an envelope in
    /// degrees selects exactly the points whose known longitude/latitude lie inside it.
    @Test func statePlaneThroughPROJ() throws {
        var rng = SplitMix64(seed: 2913)
        var known: [(id: Int64, longitude: Double, latitude: Double)] = []
        var rows: [Row] = []
        for id in 1...300 {
            let longitude = -123.2 + rng.nextDouble() * 1.2, latitude = 45.0 + rng.nextDouble() * 1.0
            let feet = ProjectionOracles.oregonNorthFeet(longitude: longitude, latitude: latitude)
            known.append((Int64(id), longitude, latitude))
            rows.append(Row(id: Int64(id), x: feet.x, y: feet.y, start: 0, end: nil, speed: 1, name: "r\(id)"))
        }
        let layer = try table(rows, wkid: 2913)
        guard case .features(let degrees) = try engine.run(FeatureQuery(outSpatialReference: 4152), on: layer) else {
            Issue.record("no features"); return
        }
        #expect(degrees.spatialReference == 4152)
        for position in degrees.rows.indices {
            let id = layer.objectID(at: degrees.rows[position])
            let expected = try #require(known.first { $0.id == id })
            let point = try #require(degrees.geometry(at: position))
            #expect(abs(point.x - expected.longitude) < 1e-8 && abs(point.y - expected.latitude) < 1e-8)
        }
        guard case .features(let geojson) = try engine.run(FeatureQuery(format: .geojson), on: layer) else { Issue.record("no features"); return }
        #expect(geojson.spatialReference == 4326)
        let first = try #require(geojson.geometry(at: 0))
        let firstKnown = try #require(known.first { $0.id == layer.objectID(at: geojson.rows[0]) })
        #expect(abs(first.x - firstKnown.longitude) < 3e-5 && abs(first.y - firstKnown.latitude) < 3e-5)
        let box = Envelope(xmin: -122.9, ymin: 45.2, xmax: -122.3, ymax: 45.7, wkid: 4152)
        let inside = known.filter { $0.longitude >= box.xmin && $0.longitude <= box.xmax && $0.latitude >= box.ymin && $0.latitude <= box.ymax }
        #expect(ids(try engine.run(FeatureQuery(geometry: box), on: layer)) == inside.map(\.id).sorted())
        #expect(inside.count > 20 && inside.count < 280)
    }

    /// Each query the layer cannot honour names the parameter: unknown fields, time on a layer without time, geometry on a table, unconvertible references, statistics without an engine, paging without pagination.
    @Test func refusalsNameTheParameter() throws {
        let layer = try table(randomRows(5, seed: 1))
        let noGeometry = try table(randomRows(5, seed: 1), geometry: false)
        let statePlane = try table(randomRows(5, seed: 1), wkid: 2913)
        var statistics = FeatureQuery()
        statistics.outStatistics = [StatisticDefinition(type: .count, field: "speed")]
        let fields = layer.schema.fields.map(\.name)
        let unknownWhere = try #require(thrown { () throws(WhereClauseError) in _ = try WhereClause("nope = 1", schema: layer.schema) })
        let badWhere = try #require(thrown { () throws(WhereClauseError) in _ = try WhereClause("speed >", schema: layer.schema) })
        func isProjection(_ parameter: String) -> @Sendable (FeatureQueryError) -> Bool {
            { error in if case .projection(parameter, _) = error { return true } else { return false } }
        }
        let cases: [(FeatureQuery, FeatureTable, @Sendable (FeatureQueryError) -> Bool)] = [
            (FeatureQuery(whereClause: "nope = 1"), layer, { $0 == .whereClause(unknownWhere) }),
            (FeatureQuery(whereClause: "speed >"), layer, { $0 == .whereClause(badWhere) }),
            (FeatureQuery(outFields: ["speed", "wind"]), layer, { $0 == .unknownField(parameter: "outFields", "wind", fields: fields) }),
            (FeatureQuery(orderBy: [OrderByField(field: "wind")]), layer, { $0 == .unknownField(parameter: "orderByFields", "wind", fields: fields) }),
            (FeatureQuery(geometry: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1)), noGeometry, { $0 == .noGeometry }),
            (FeatureQuery(geometry: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, wkid: 99999)), layer, isProjection("inSR")),
            (FeatureQuery(outSpatialReference: 99999), layer, isProjection("outSR")),
            (FeatureQuery(outSpatialReference: 3857, format: .geojson), statePlane, { $0 == .geoJSONNotWGS84(SpatialReference.webMercator) }),
            (statistics, layer, { $0 == .statisticsUnsupported(parameter: "outStatistics") }),
            ({ var q = FeatureQuery(geometry: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1)); q.distance = 5; q.distanceUnit = .meter; return q }(),
             statePlane, { $0 == .unitNotConvertible(layerReference: 2913, .meter) }),
        ]
        for (query, target, matches) in cases {
            #expect {
                _ = try engine.run(query, on: target)
            } throws: { error in
                guard let error = error as? FeatureQueryError else { return false }
                return matches(error)
            }
        }
        do throws(FeatureQueryError) { _ = try engine.run(FeatureQuery(outFields: ["wind"]), on: layer) } catch {
            #expect(error.description == "'outFields' parameter is invalid: unknown field 'wind' (fields: \(fields.joined(separator: ", ")))")
        }
        let untimed = try FeatureFile.load(bytes: Array("a,lat,lon\n1,2,3\n".utf8), fileName: "u.csv")
        #expect(throws: FeatureQueryError.notTimeAware) { _ = try engine.run(FeatureQuery(time: try TimeExtent(start: 0, end: 1)), on: untimed) }
    }

    /// A statistics engine, when given, receives exactly the filtered rows and its rows are written as attribute-only features.
    @Test func statisticsExtensionPoint() throws {
        struct Counter: FeatureStatisticsEngine {
            func statistics(of table: FeatureTable, rows: [Int], query: FeatureQuery) throws(FeatureQueryError) -> FeatureStatisticsResult {
                FeatureStatisticsResult(fields: [Field(name: "COUNT_speed", type: .integer)], rows: [[.int(Int64(rows.count))]])
            }
        }
        let rows = randomRows(50, seed: 3)
        let layer = try table(rows)
        var query = FeatureQuery(whereClause: "speed > 20")
        query.outStatistics = [StatisticDefinition(type: .count, field: "speed")]
        let result = try FeatureQueryEngine(statistics: Counter()).run(query, on: layer)
        let expected = rows.filter { ($0.speed ?? 0) > 20 }.count
        #expect(String(decoding: FeatureSetWriter.write(result, format: .json), as: UTF8.self)
            == #"{"displayFieldName":"","fields":[{"name":"COUNT_speed","type":"esriFieldTypeInteger","alias":"COUNT_speed","nullable":true}],"features":[{"attributes":{"COUNT_speed":\#(expected)}}]}"#)
    }

    /// The writers produce the Esri FeatureSet and GeoJSON shapes, and the client reader reads the Esri one back.
    @Test func writersAndReader() throws {
        let layer = try table([Row(id: 4, x: -18, y: 10.8, start: 965_354_400_000, speed: 25, name: "ALBERTO"),
                               Row(id: 5, x: nil, y: nil, start: nil, speed: nil, name: "x")])
        let result = try FeatureQueryEngine(maxRecordCount: 1).run(FeatureQuery(outFields: ["start", "name"]), on: layer)
        let esri = String(decoding: FeatureSetWriter.write(result, format: .json), as: UTF8.self)
        #expect(esri == #"{"objectIdFieldName":"OBJECTID","globalIdFieldName":"","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326,"latestWkid":4326},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false},{"name":"start","type":"esriFieldTypeDate","alias":"start","nullable":true},{"name":"name","type":"esriFieldTypeString","alias":"name","nullable":true}],"exceededTransferLimit":true,"features":[{"attributes":{"OBJECTID":4,"start":965354400000,"name":"ALBERTO"},"geometry":{"x":-18.0,"y":10.8}}]}"#)
        let geojson = String(decoding: FeatureSetWriter.write(try engine.run(FeatureQuery(outFields: ["name"]), on: layer), format: .geojson), as: UTF8.self)
        #expect(geojson == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[-18.0,10.8]},"properties":{"OBJECTID":4,"name":"ALBERTO"}},{"type":"Feature","id":5,"geometry":null,"properties":{"OBJECTID":5,"name":"x"}}],"properties":{"exceededTransferLimit":false}}"#)
        let page = try FeatureSetReader.page(Array(esri.utf8), receivedAt: 7)
        #expect(page.exceededTransferLimit)
        #expect(page.objectIDFieldName == "OBJECTID")
        #expect(page.spatialReference == 4326)
        #expect(page.schema.fields.map(\.type) == [.objectID, .date, .string])
        try #require(page.features.count == 1)
        #expect(page.features[0].attributes == [.int(4), .date(milliseconds: 965_354_400_000), .string("ALBERTO")])
        #expect(page.features[0].geometry == Point(x: -18, y: 10.8, wkid: 4326))
        #expect(page.objectID(of: page.features[0]) == 4)
        let pretty = FeatureSetWriter.write(result, format: .pjson)
        #expect(try JSONParser.parse(pretty) == (try JSONParser.parse(Array(esri.utf8))))
        #expect(String(decoding: pretty, as: UTF8.self).contains("\n  \"objectIdFieldName\" : \"OBJECTID\""))
        #expect(String(decoding: FeatureSetWriter.write(.count(3), format: .json), as: UTF8.self) == #"{"count":3}"#)
        #expect(String(decoding: FeatureSetWriter.write(.objectIDs(fieldName: "FID", [3, 1]), format: .json), as: UTF8.self) == #"{"objectIdFieldName":"FID","objectIds":[3,1]}"#)
    }

    /// The client reader tells an ArcGIS error, HTML, a truncated body and a wrong shape apart.
    @Test func readerClassifiesBadBodies() {
        func failure(_ text: String) -> FeatureSetReadError? {
            do { _ = try FeatureSetReader.page(Array(text.utf8)); return nil } catch { return error }
        }
        #expect(failure(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#)
            == .arcGIS(ArcGISError(code: 400, message: "Unable to complete operation.", details: ["'where' parameter is invalid"])))
        if case .notJSON(_, let excerpt)? = failure("<html><body>Sign in</body></html>") { #expect(excerpt.hasPrefix("<html>")) } else { Issue.record("HTML is not JSON") }
        #expect(failure(#"{"objectIdFieldName":"OBJECTID","features":[{"attributes":{"OBJECTID":1}},{"attr"#) == .truncated(bytes: 80))
        #expect(failure(#"{"count":3}"#) == .invalid(.noFeatures))
        #expect(failure(#"{"count":3}"#)?.description == "unexpected response: the answer has no 'features' (expected a FeatureSet)")
        #expect(failure("[1,2]") == .invalid(.notAnObject))
        #expect(failure("[1,2]")?.description == "unexpected response: the answer is JSON but not an object")
        #expect(failure(#"{"features":[{"attributes":{}},7]}"#)?.description.hasPrefix("unexpected response: features[1] is not an Esri feature: ") == true)
        if case .invalid(.notAnEsriFeature(index: 1, _))? = failure(#"{"features":[{"attributes":{}},7]}"#) {} else { Issue.record("7 is not a feature") }
        if case .invalid(.featuresNotAnArray)? = failure(#"{"features":{}}"#) {} else { Issue.record("an object is not a list of features") }
        func reading<T>(_ text: String, _ read: ([UInt8]) throws(FeatureSetReadError) -> T) -> FeatureSetReadError? {
            do { _ = try read(Array(text.utf8)); return nil } catch { return error }
        }
        #expect(reading(#"{"objectIds":[1]}"#, FeatureSetReader.count) == .invalid(.noCount))
        #expect(reading(#"{"objectIds":[1]}"#, FeatureSetReader.count)?.description == #"unexpected response: the answer has no 'count' (expected {"count":N})"#)
        #expect(reading(#"{"count":1}"#, FeatureSetReader.objectIDs) == .invalid(.noObjectIDs))
        #expect(reading(#"{"count":1}"#, FeatureSetReader.objectIDs)?.description == #"unexpected response: the answer has no 'objectIds' (expected {"objectIds":[…]})"#)
        #expect(reading(#"{"objectIds":3}"#, FeatureSetReader.objectIDs) == .invalid(.objectIDsNotAnArray))
        #expect(reading(#"{"objectIds":[1,"x"]}"#, FeatureSetReader.objectIDs) == .invalid(.notAnObjectID(.string("x"))))
        #expect(reading(#"{"objectIds":[1,"x"]}"#, FeatureSetReader.objectIDs)?.description == "unexpected response: 'objectIds' holds \(JSONValue.string("x")), not an object id")
        #expect((try? FeatureSetReader.objectIDs(Array(#"{"objectIdFieldName":"OID","objectIds":null}"#.utf8)).ids) == [])
    }
}
