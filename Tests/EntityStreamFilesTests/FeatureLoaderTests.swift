import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// Loads `text` as a file named `name`.
private func load(_ text: String, name: String = "layer.txt", mapping: String? = nil, format: FeatureFileFormat? = nil) throws -> FeatureTable {
    var options = FeatureLoadOptions(format: format)
    if let mapping { options.mapping = try FeatureColumnMapping(parsing: mapping) }
    return try FeatureFile.load(bytes: Array(text.utf8), fileName: name, options: options)
}

/// The error loading `text` throws.
private func loadError(_ text: String, name: String = "layer.txt", mapping: String? = nil, format: FeatureFileFormat? = nil) -> FeatureLoadError? {
    do {
        _ = try load(text, name: name, mapping: mapping, format: format)
        return nil
    } catch let error as FeatureLoadError {
        return error
    } catch {
        return nil
    }
}

/// The values of field `name` in row order.
private func column(_ table: FeatureTable, _ name: String) -> [AttributeValue] {
    guard let field = table.schema.index(ofField: name) else { return [] }
    return (0..<table.count).map { table.value(row: $0, field: field) }
}

@Suite("Feature file loaders", .bounded)
struct FeatureLoaderTests {
    /// A load whose task is cancelled stops within a few thousand rows with a cancellation error,
    /// in every format (Ctrl-C during `statistics` or `query` of a 410 MB CSV used to wait 45 s for
    /// the whole file); the same load uncancelled reads every row. The JSON loaders look at
    /// their task every 4,096 features (``CancellationCheckpoint``): 12,000 rows pass two checks.
    @Test(arguments: ["csv", "esri-lines", "geojsonseq"])
    func loadingStopsWhenItsTaskIsCancelled(format: String) async throws {
        let rows = 12_000
        let text: String
        switch format {
        case "csv":
            text = "id,lon,lat\n" + (0..<rows).map { "\($0),\(Double($0 % 180)),1.5\n" }.joined()
        case "esri-lines":
            text = (0..<rows).map { #"{"geometry":{"x":\#($0 % 180),"y":1.5},"attributes":{"id":\#($0)}}"# + "\n" }.joined()
        default:
            text = (0..<rows).map { #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#($0 % 180),1.5]},"properties":{"id":\#($0)}}"# + "\n" }.joined()
        }
        let bytes = Array(text.utf8)
        let options = FeatureLoadOptions(format: FeatureFileFormat(name: format))
        func load() -> Result<Int, FeatureLoadError> {
            Result { () throws(FeatureLoadError) in try FeatureFile.load(bytes: bytes, fileName: "big.\(format)", options: options).count }
        }
        let cancelled = await Task { () -> Result<Int, FeatureLoadError> in
            withUnsafeCurrentTask { $0?.cancel() }
            return load()
        }.value
        #expect(cancelled == .failure(FeatureLoadError.cancelled(file: "big.\(format)")))
        if case .failure(let error) = cancelled { #expect(error.isCancellation) }
        let whole = await Task { load() }.value
        #expect(whole == .success(rows))
    }

    /// A CSV with lat/lon columns loads as points with inferred types, an ISO date column as the time field, and object ids 1…n.
    @Test func csvPointsWithInferredTypes() throws {
        let table = try load("""
            id,name,when,lat,lon,wind,code
            1,ALBERTO,2000-08-04T02:00:00Z,10.8,-18.0,25,007
            2,ALBERTO,2000-08-04 06:00,11.5,-20.1,30.5,008
            3,,2000-08-05,12.0,-21.0,,009
            """, name: "storms.csv")
        #expect(table.name == "storms")
        #expect(table.report.format == .csv)
        #expect(table.count == 3)
        #expect(table.geometryType == .point)
        #expect(table.spatialReference == 4326)
        #expect(table.schema.fields.map(\.name) == ["OBJECTID", "id", "name", "when", "lat", "lon", "wind", "code"])
        #expect(table.schema.fields.map(\.type) == [.objectID, .integer, .string, .date, .double, .double, .double, .string])
        #expect(table.objectIDFieldIndex == 0)
        #expect((0..<3).map { table.objectID(at: $0) } == [1, 2, 3])
        #expect(table.startTimeFieldIndex == table.schema.index(ofField: "when"))
        #expect(column(table, "when") == [.date(milliseconds: 965_354_400_000), .date(milliseconds: 965_368_800_000), .date(milliseconds: 965_433_600_000)])
        #expect(column(table, "wind") == [.double(25), .double(30.5), .null])
        #expect(column(table, "code") == [.string("007"), .string("008"), .string("009")])
        #expect(column(table, "name")[2] == .null)
        #expect(table.geometry(at: 1) == Point(x: -20.1, y: 11.5, wkid: 4326))
        #expect(table.extent == Envelope(xmin: -21, ymin: 10.8, xmax: -18, ymax: 12, wkid: 4326))
        #expect(table.dataTimeExtent == (try TimeExtent(start: 965_354_400_000, end: 965_433_600_000)))
        #expect(table.report.notes.contains { $0.contains("'lon' and 'lat'") })
        #expect(table.report.notes.contains { $0.contains("OBJECTID") })
    }

    /// The mapping chooses x, y, the time, an end time, the track and the object id; epoch seconds are read as times.
    @Test func csvMapping() throws {
        let table = try load("""
            fid,px,py,t0,t1,vessel
            10,1.5,2.5,946684800,946688400,A
            20,3.5,4.5,946684800,,B
            """, name: "x.csv", mapping: "x=px,y=py,time=t0,end=t1,track=vessel,oid=fid,wkid=3857")
        #expect(table.schema.fields.map(\.name) == ["fid", "px", "py", "t0", "t1", "vessel"])
        #expect(table.objectIDField.name == "fid")
        #expect(table.objectIDField.type == .objectID)
        #expect((0..<2).map { table.objectID(at: $0) } == [10, 20])
        #expect(table.row(withObjectID: 20) == 1)
        #expect(table.row(withObjectID: 2) == nil)
        #expect(table.spatialReference == 3857)
        #expect(table.schema.trackIDField?.name == "vessel")
        #expect(column(table, "t0") == [.date(milliseconds: 946_684_800_000), .date(milliseconds: 946_684_800_000)])
        #expect(table.timeSpan(at: 0)! == (946_684_800_000, 946_688_400_000))
        #expect(table.timeSpan(at: 1)! == (946_684_800_000, 946_684_800_000))
        #expect(table.geometry(at: 0) == Point(x: 1.5, y: 2.5, wkid: 3857))
    }

    /// A CSV without coordinate columns is a table: no geometry, no spatial reference; time=none turns dates into plain fields.
    @Test func csvWithoutCoordinatesIsATable() throws {
        let table = try load("State,County,Diabetes,Reported\nAlabama,Autauga,9.9,2013-01-01\nAlabama,Baldwin,8.5,2013-01-01\n",
                             name: "counties.csv", mapping: "time=none")
        #expect(table.geometryType == .none)
        #expect(table.spatialReference == nil)
        #expect(table.geometry(at: 0) == nil)
        #expect(table.extent == nil)
        #expect(!table.isTimeAware)
        #expect(table.schema.fields.map(\.type) == [.objectID, .string, .string, .double, .date])
    }

    /// Each bad CSV is refused with the file, the line and the problem, by case.
    @Test(arguments: [
        ("", nil, nil, .csv(.emptyText)),
        ("a,b,A\n1,2,3\n", nil, 1, .csv(.headerColumnTwice("A"))),
        ("a,,c\n1,2,3\n", nil, 1, .csv(.headerColumnWithoutName(column: 2))),
        ("a,lat,lon\n1,2,3\n4,5\n", nil, 3, .csv(.fieldCount(expected: 3, found: 2))),
        ("a,lat,lon\n1,2,3\n4,north,5\n", nil, 3, .csv(.notANumber(key: "y", column: "lat", text: "north"))),
        ("a,lat,lon\n1,2,3\n4,,5\n", nil, 3, .csv(.coordinateEmptyBesideOther(key: "y", column: "lat"))),
        ("a,t,lat,lon\n1,2000-01-01,2,3\n4,yesterday,5,6\n", "time=t", 3, .csv(.unreadableTime(column: "t", text: "yesterday"))),
        ("a,t\n1,2\n", "time=when", nil, .mappedFieldMissing(role: "time", name: "when", fields: ["a", "t"])),
        ("a,b\n1,2\n", "x=a,y=c", 1, .csv(.missingColumn("c", role: "y", columns: ["a", "b"]))),
        ("a,b\n1,x\n1,y\n", "oid=a", 3, .csv(.row(.repeatedObjectID(1, field: "a")))),
        ("a,b\n1,x\n", "oid=b", nil, .oidNotInteger(field: "b", .string)),
        ("a,b\n\"1,x\n", nil, 2, .csv(.unclosedQuote)),
    ] as [(String, String?, Int?, FeatureLoadError.Reason)])
    func csvErrors(text: String, mapping: String?, line: Int?, reason: FeatureLoadError.Reason) {
        let error = loadError(text, name: "bad.csv", mapping: mapping)
        #expect(error == FeatureLoadError(file: "bad.csv", line: line, reason))
        #expect(error?.description == "bad.csv\(line.map { ":\($0)" } ?? ""): \(reason)")
    }

    /// The printed error names the file, the line and the problem in words (README and users read it).
    @Test func csvErrorText() {
        #expect(loadError("a,lat,lon\n1,2,3\n4,north,5\n", name: "bad.csv")?.description == "bad.csv:3: y column 'lat': 'north' is not a number")
        #expect(loadError("a,b\n1,x\n1,y\n", name: "bad.csv", mapping: "oid=a")?.description
                == "bad.csv:3: object id 1 is repeated ('a' must be unique)")
        #expect(loadError("a,t\n1,2\n", name: "bad.csv", mapping: "time=when")?.description
                == "bad.csv: the column mapping names time field 'when', which the file does not have (fields: a, t)")
    }

    /// Esri feature lines: fields learned in order, ints widened to doubles when a later value has a fraction, ISO texts as dates, wkid from the features.
    @Test func esriFeatureLines() throws {
        let table = try load("""
            {"geometry":{"x":-8000000,"y":5000000,"spatialReference":{"wkid":102100}},"attributes":{"name":"A","speed":5,"seen":"2020-01-01T00:00:00Z","ok":true}}

            {"geometry":null,"attributes":{"name":"B","speed":5.5,"seen":"2020-01-02T00:00:00Z","ok":false,"extra":1}}
            """, name: "f.json")
        #expect(table.report.format == .esriFeatureLines)
        #expect(table.spatialReference == 102100)
        #expect(table.schema.fields.map(\.name) == ["OBJECTID", "name", "speed", "seen", "ok", "extra"])
        #expect(table.schema.fields.map(\.type) == [.objectID, .string, .double, .date, .smallInteger, .integer])
        #expect(column(table, "speed") == [.double(5), .double(5.5)])
        #expect(column(table, "ok") == [.int(1), .int(0)])
        #expect(column(table, "extra") == [.null, .int(1)])
        #expect(table.geometry(at: 1) == nil)
        #expect(table.geometry(at: 0)?.x == -8_000_000)
        #expect(table.startTimeFieldIndex == table.schema.index(ofField: "seen"))
    }

    /// An Esri FeatureSet keeps its declared fields, object id and spatial reference; points in 4326 are projected to the layer's 3857.
    @Test func esriFeatureSet() throws {
        let table = try load("""
            {"objectIdFieldName":"FID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":3857},
             "fields":[{"name":"FID","type":"esriFieldTypeOID"},{"name":"Date_Time","type":"esriFieldTypeDate"},{"name":"WIND","type":"esriFieldTypeDouble"}],
             "features":[
              {"attributes":{"FID":7,"Date_Time":965354400000,"WIND":25},"geometry":{"x":0,"y":0}},
              {"attributes":{"FID":9,"Date_Time":null,"WIND":30},"geometry":{"x":-18,"y":10.8,"spatialReference":{"wkid":4326}}}
             ]}
            """, name: "set.json")
        #expect(table.report.format == .esriFeatureSet)
        #expect(table.objectIDField.name == "FID")
        #expect((0..<2).map { table.objectID(at: $0) } == [7, 9])
        #expect(table.schema.fields.map(\.type) == [.objectID, .date, .double])
        #expect(column(table, "WIND") == [.double(25), .double(30)])
        #expect(column(table, "Date_Time") == [.date(milliseconds: 965_354_400_000), .null])
        let projected = try #require(table.geometry(at: 1))
        #expect(abs(projected.x - -2_003_750.834) < 0.01)
        #expect(projected.wkid == 3857)
    }

    /// A JSON array of Esri features loads like feature lines, with line numbers in errors.
    @Test func esriArrayAndItsErrors() throws {
        let table = try load("[\n{\"attributes\":{\"a\":1}},\n{\"attributes\":{\"a\":2}}\n]", name: "a.json")
        #expect(table.report.format == .esriFeatureArray)
        #expect(table.geometryType == .none)
        #expect(column(table, "a") == [.int(1), .int(2)])
        let polyline = loadError("[\n{\"attributes\":{\"a\":1}},\n{\"geometry\":{\"paths\":[[[0,0],[1,1]]]},\"attributes\":{\"a\":2}}\n]")
        #expect(polyline?.line == 3)
        #expect(polyline?.reason == .nonPointFeature(kind: "polyline"))
        let badLine = loadError("{\"attributes\":{\"a\":1}}\n{\"attributes\":{\"a\":\"x\"}}\n{\"attributes\": 5}\n")
        #expect(badLine?.line == 3)
        guard case .notEsriFeature? = badLine?.reason else { Issue.record("\(String(describing: badLine))"); return }
        #expect(badLine?.description.hasPrefix("layer.txt:3: not an Esri JSON feature: ") == true)
        let declared = loadError("{\"fields\":[{\"name\":\"n\",\"type\":\"esriFieldTypeInteger\"}],\"features\":[\n{\"attributes\":{\"n\":1}},\n{\"attributes\":{\"n\":\"many\"}}]}")
        #expect(declared?.line == 3)
        #expect(declared?.reason == .cannotHold(field: "n", .integer, .string("many")))
        #expect(declared?.description == "layer.txt:3: field 'n' (esriFieldTypeInteger) cannot hold 'many'")
    }

    /// A file holding ArcGIS's error answer is refused with the answer as read, not as features.
    @Test func arcGISErrorAnswer() {
        let error = loadError(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#,
                              name: "answer.json", format: .esriFeatureSet)
        #expect(error?.reason == .arcGISError(ArcGISError(code: 400, message: "Unable to complete operation.",
                                                          details: ["'where' parameter is invalid"])))
        #expect(error?.description == "answer.json: the file holds an ArcGIS error, not features: "
                                      + "ArcGIS error 400: Unable to complete operation. ('where' parameter is invalid)")
    }

    /// GeoJSON: Points in WGS84, properties typed, unique integer ids become the object ids; GeoJSONSeq reads one feature per line.
    @Test func geoJSON() throws {
        let collection = try load("""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","id":5,"geometry":{"type":"Point","coordinates":[-80.5,25.1]},"properties":{"name":"A","t":"2000-09-01T00:00:00Z","tags":["x"]}},
              {"type":"Feature","id":6,"geometry":null,"properties":{"name":"B","t":null,"n":3}}
            ]}
            """, name: "c.geojson")
        #expect(collection.report.format == .geoJSON)
        #expect(collection.objectIDField.name == "OBJECTID")
        #expect((0..<2).map { collection.objectID(at: $0) } == [5, 6])
        #expect(collection.schema.fields.map(\.name) == ["OBJECTID", "name", "t", "tags", "n"])
        #expect(collection.schema.fields.map(\.type) == [.objectID, .string, .date, .string, .integer])
        #expect(column(collection, "tags") == [.string("[\"x\"]"), .null])
        #expect(collection.geometry(at: 0) == Point(x: -80.5, y: 25.1, wkid: 4326))
        #expect(collection.geometry(at: 1) == nil)

        let sequence = try load("\u{1E}{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2,3]},\"properties\":{\"v\":1}}\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]},\"properties\":{\"v\":2.5}}\n")
        #expect(sequence.report.format == .geoJSONSeq)
        #expect(sequence.schema.fields.map(\.name) == ["OBJECTID", "id", "v"])
        #expect(column(sequence, "id") == [.string("a"), .null])
        #expect(column(sequence, "v") == [.double(1), .double(2.5)])
        #expect(sequence.geometry(at: 0)?.z == 3)

        let line = loadError("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{}}\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]},\"properties\":{}}\n")
        #expect(line?.line == 2)
        #expect(line?.reason == .notPointGeometry("LineString"))
        let casing = loadError("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"Name\":1}}\n{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"name\":2}}\n")
        #expect(casing?.line == 2)
        #expect(casing?.reason == .propertiesDifferInCase("Name", "name"))
    }

    /// A recording loads with the recorded description's fields and time field; deletes and undecodable messages are skipped and counted.
    @Test func recording() throws {
        let description = #"{"fields":[{"name":"id","type":"esriFieldTypeString"},{"name":"at","type":"esriFieldTypeDate"}],"timeInfo":{"trackIdField":"id","startTimeField":"at"},"spatialReference":{"wkid":4326},"streamUrls":[]}"#
        let text = """
            {"recording":"entitystream","version":1,"service":"http://x/StreamServer","startedAt":0,"description":\(description)}
            {"t":0,"message":{"geometry":{"x":1,"y":2},"attributes":{"id":"A","at":1000}}}
            {"t":5,"text":"not json"}
            {"t":9,"message":{"type":"delete","feature":{"attributes":{"id":"A"}}}}
            {"t":10,"message":[{"geometry":{"x":3,"y":4},"attributes":{"id":"B","at":2000}},{"geometry":{"x":5,"y":6},"attributes":{"id":"A","at":3000}}]}
            """
        let table = try load(text, name: "r.jsonl")
        #expect(table.report.format == .recording)
        #expect(table.count == 3)
        #expect(table.schema.trackIDField?.name == "id")
        #expect(table.startTimeFieldIndex == table.schema.index(ofField: "at"))
        #expect(column(table, "at") == [.date(milliseconds: 1000), .date(milliseconds: 2000), .date(milliseconds: 3000)])
        #expect(table.report.skipped.map(\.reason) == ["undecodable message", "delete message"])
        #expect(table.report.skipped.map(\.firstLine) == [3, 4])
        #expect(table.report.skippedCount == 2)
    }

    /// The format is recognised from the text; a forced format overrides it; x/y mappings apply to CSV only.
    @Test func sniffingAndForcing() throws {
        #expect(FeatureFileFormat.sniff(Array("a,b\n1,2".utf8)) == .csv)
        #expect(FeatureFileFormat.sniff(Array("[]".utf8)) == .esriFeatureArray)
        #expect(FeatureFileFormat.sniff(Array("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)) == .geoJSON)
        #expect(FeatureFileFormat.sniff(Array("{\n  \"type\": \"FeatureCollection\",\n  \"features\": []\n}".utf8)) == .geoJSON)
        #expect(FeatureFileFormat.sniff(Array("{\"type\":\"Feature\",\"geometry\":null}\n".utf8)) == .geoJSONSeq)
        #expect(FeatureFileFormat.sniff(Array("{\"features\":[]}".utf8)) == .esriFeatureSet)
        #expect(FeatureFileFormat.sniff(Array("{\"attributes\":{}}\n{\"attributes\":{}}".utf8)) == .esriFeatureLines)
        #expect(FeatureFileFormat.sniff(Array("{\"recording\":\"entitystream\",\"version\":1}".utf8)) == .recording)
        #expect(FeatureFileFormat.sniff(Array("{\"hello\":1}".utf8)) == nil)
        #expect(FeatureFileFormat(name: "GeoJSONSeq") == .geoJSONSeq)
        #expect(FeatureFileFormat(name: "shapefile") == nil)
        // A one-column CSV whose header starts with '{' is still read as CSV when forced.
        let forced = try load("{weird}\n1\n2\n", format: .csv)
        #expect(forced.count == 2)
        #expect(loadError("{\"hello\":1}")?.reason == .unknownFormat)
        #expect(loadError("[]", mapping: "x=a,y=b")?.reason == .coordinatesForNonCSV(.esriFeatureArray))
    }

    /// Mapping texts are parsed strictly: unknown keys, one coordinate without the other, a bad wkid are refused.
    @Test(arguments: [
        ("x=lon", .oneCoordinate(given: "x", missing: "y")),
        ("lon=x", .unknownKey("lon", keys: FeatureColumnMapping.keys)),
        ("wkid=web", .badWKID("web")),
        ("time=none,end=t", .noTimeWithEnd),
        ("x=a,x=b", .repeatedKey("x")),
    ] as [(String, CSVError.Reason)])
    func mappingErrors(text: String, reason: CSVError.Reason) {
        #expect(throws: CSVError(reason)) { _ = try FeatureColumnMapping(parsing: text) }
    }

    /// Loading from a path reads the file; a missing file names it and the system's reason.
    @Test func loadsFromAPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("layer-\(UUID().uuidString).csv").path
        try "lat,lon\n1,2\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let table = try FeatureFile.load(path: path)
        #expect(table.count == 1)
        #expect(table.name.hasPrefix("layer-"))
        #expect {
            _ = try FeatureFile.load(path: path + ".missing")
        } throws: { error in
            let error = error as? FeatureLoadError
            return error == FeatureLoadError(file: path + ".missing", .system(.open, errno: ENOENT))
                && error?.description == "\(path).missing: cannot open the file: No such file or directory"
        }
        #expect {
            _ = try FeatureFile.load(path: path, options: FeatureLoadOptions(maximumFileSize: 3))
        } throws: { error in
            (error as? FeatureLoadError)?.reason == .fileTooLarge(size: 12, limit: 3)
        }
    }

    /// Arbitrary bytes never crash a loader: each is a table or an error.
    @Test func garbageNeverCrashes() {
        var rng = SplitMix64(seed: 99)
        let alphabet: [UInt8] = Array("{}[]\",:0123456789.-eE tnulrfasxyXY\n\r\u{1E}".utf8) + [0xFF]
        let prefixes = ["", "{\"type\":\"FeatureCollection\",\"features\":[", "[", "lat,lon,t\n", "{\"fields\":[", "{\"attributes\":"]
        for _ in 0..<3000 {
            let length = rng.next(below: 50)
            let prefix = prefixes[rng.next(below: prefixes.count)]
            let bytes = Array(prefix.utf8) + (0..<length).map { _ in alphabet[rng.next(below: alphabet.count)] }
            for format in [nil] + FeatureFileFormat.allCases.map(Optional.some) {
                _ = try? FeatureFile.load(bytes: bytes, fileName: "g", options: FeatureLoadOptions(format: format))
            }
        }
    }
}
