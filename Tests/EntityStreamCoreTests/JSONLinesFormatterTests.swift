import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// Formats one event and parses the line back with Foundation.
private func line(_ event: StreamEvent, format: OutputFormat = .esri, schema: Schema) throws -> [String: Any] {
    var formatter = JSONLinesFormatter(format: format, schema: schema)
    var writer = JSONWriter()
    formatter.append(event, to: &writer)
    let bytes = writer.bytes
    #expect(bytes.last == UInt8(ascii: "\n"))
    #expect(bytes.dropLast().contains(UInt8(ascii: "\n")) == false)
    return try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

private let schema = Schema(fields: [Field(name: "name", type: .string), Field(name: "speed", type: .double),
                                     Field(name: "time", type: .date)], trackIDField: "name")
private let entity = EntityReference(entityID: 7, trackID: .string("TRUCK 7"))
private let observation = Observation(geometry: Point(x: -111.9, y: 40.6, wkid: 4326),
                                      attributes: [.string("TRUCK 7"), .double(12.5), .date(milliseconds: 1_700_000_000_000)],
                                      receivedAt: 1_767_225_600_123)

@Suite("JSON lines", .bounded)
struct JSONLinesFormatterTests {
    /// An observation line starts with "event" and carries track, entity, both times, geometry and attributes.
    @Test func observationLine() throws {
        var formatter = JSONLinesFormatter(format: .esri, schema: schema)
        var writer = JSONWriter()
        formatter.append(StreamEvent(time: observation.receivedAt, payload: .store(.observation(entity, observationID: 42, observation))), to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"event":"observation","track":"TRUCK 7","entity":7,"observation":42,"time":"2026-01-01T00:00:00.123Z","epoch":1767225600123"#))
        let object = try line(StreamEvent(time: observation.receivedAt, payload: .store(.observation(entity, observationID: 42, observation))), schema: schema)
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect(geometry["x"] as? Double == -111.9)
        #expect((geometry["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        let attributes = try #require(object["attributes"] as? [String: Any])
        #expect(attributes["speed"] as? Double == 12.5)
        #expect(attributes["time"] as? Int64 == 1_700_000_000_000)
    }

    /// An error text quoting a huge input (a description with 300,000 fields) is cut on stdout as on
    /// stderr: the line keeps its first 2,000 bytes of the text and says how long it was (it used to
    /// carry all of it: a 2.6 MB line). Short texts are as they were.
    @Test func errorTextsAreBounded() throws {
        let fields = (0..<300_000).map { "field\($0)" }.joined(separator: ", ")
        let huge = "track field 'x' is not a field of the service (fields: \(fields))"
        let total = huge.utf8.count
        let events: [(StreamEvent, String)] = [
            (StreamEvent(time: 0, payload: .error(StreamErrorReport(source: .message, message: huge, count: 1))), "message"),
            (StreamEvent(time: 0, payload: .status(ConnectionStatusChange(status: .failed, attempt: 0, url: nil, error: huge, time: 0))), "error"),
            (StreamEvent(time: 0, payload: .response(ControlResponse(id: .int(1), command: "status", ok: false, error: huge))), "error"),
        ]
        for (event, member) in events {
            for format in [OutputFormat.esri, .geojson] {
                var formatter = JSONLinesFormatter(format: format, schema: schema)
                var writer = JSONWriter()
                formatter.append(event, to: &writer)
                #expect(writer.bytes.count < 2_400, "\(member): \(writer.bytes.count) bytes")
                let object = try line(event, format: format, schema: schema)
                let text = try #require((object[member] ?? (object["properties"] as? [String: Any])?[member]) as? String)
                #expect(text.hasPrefix(String(huge.prefix(1_000))))
                #expect(text.hasSuffix("… (\(total) bytes in all)"))
                #expect(text.utf8.count <= 2_000 + "… (\(total) bytes in all)".utf8.count)
            }
        }
        let short = try line(StreamEvent(time: 0, payload: .error(StreamErrorReport(source: .message, message: "bad  byte", count: 1))), schema: schema)
        #expect(short["message"] as? String == "bad  byte")
    }

    /// Every field of the schema appears in every line (null when not carried), so the columns are stable.
    @Test func attributesAlwaysCoverTheSchema() throws {
        let short = Observation(geometry: nil, attributes: [.string("TRUCK 7")], receivedAt: 0)
        let object = try line(StreamEvent(time: 0, payload: .store(.observation(entity, observationID: 1, short))), schema: schema)
        let attributes = try #require(object["attributes"] as? [String: Any])
        #expect(Set(attributes.keys) == ["name", "speed", "time"])
        #expect(attributes["speed"] is NSNull && attributes["time"] is NSNull)
        #expect(object["geometry"] is NSNull)
    }

    /// A decoded observation's geometry and attributes are copied verbatim from the message.
    @Test func decodedObservationPassesSourceTextThrough() throws {
        let message = #"{"attributes":{"NAME":"TRUCK 7","speed":12.50,"extra":true},"geometry":{"y":40.6,"x":-111.9}}"#
        var decoder = EsriFeatureDecoder(schema: schema)
        var messages: [StreamMessage] = []
        try decoder.decode(Array(message.utf8), receivedAt: 5, into: &messages)
        let decoded = try #require(messages.first?.carriedObservation)
        #expect(decoded.source != nil)
        var formatter = JSONLinesFormatter(format: .esri, schema: decoder.schema)
        var writer = JSONWriter()
        formatter.append(StreamEvent(time: 5, payload: .store(.observation(entity, observationID: 1, decoded))), to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#","geometry":{"y":40.6,"x":-111.9},"attributes":{"NAME":"TRUCK 7","speed":12.50,"extra":true}}"#))
        // Changing the values drops the source text: output is formatted from the values.
        var projected = decoded
        projected.attributes = [.string("TRUCK 7")]
        #expect(projected.source == nil)
    }

    /// A create/update message keeps its feature's own text too; a value spanning lines is formatted instead.
    @Test func wrappedFeaturesPassTheirTextThrough() throws {
        var decoder = EsriFeatureDecoder(schema: schema)
        var messages: [StreamMessage] = []
        let wrapped = #"{"type":"update","feature":{"geometry":{"x":-111.90,"y":40.6},"attributes":{"name":"TRUCK 7","speed":12.50}}}"#
        try decoder.decode(Array(wrapped.utf8), receivedAt: 5, into: &messages)
        let source = try #require(messages.first?.carriedObservation?.source)
        #expect(source.attributesText == #"{"name":"TRUCK 7","speed":12.50}"#)
        #expect(source.geometryText == #"{"x":-111.90,"y":40.6}"#)
        messages.removeAll()
        try decoder.decode(Array("{\"attributes\":{\"name\":\"T\",\n\"speed\":1},\"geometry\":{\"x\":1,\"y\":2}}".utf8), receivedAt: 5, into: &messages)
        #expect(messages.first?.carriedObservation?.source == nil)
    }

    /// Purge events carry the reason and the purged observation's receive time; purge-all is flagged.
    @Test func purgeLines() throws {
        let purged = try line(StreamEvent(time: 2_000, payload: .store(.observationPurged(entity, observationID: 3, receivedAt: 1_000, reason: .maximumObservationsPerTrack))), schema: schema)
        #expect(purged["event"] as? String == "observation-purged")
        #expect(purged["reason"] as? String == "maximumObservationsPerTrack")
        #expect(purged["receivedEpoch"] as? Int == 1_000)
        #expect(purged["received"] as? String == "1970-01-01T00:00:01.000Z")
        #expect(purged["epoch"] as? Int == 2_000)
        let gone = try line(StreamEvent(time: 2_000, payload: .store(.entityPurged(entity, cause: .purgeAll))), schema: schema)
        #expect(gone["event"] as? String == "entity-purged")
        #expect(gone["purgeAll"] as? Bool == true)
        #expect(gone["cause"] as? String == "purgeAll")
    }

    /// Status, filter, error, response and dropped events have their own members.
    @Test func otherEventLines() throws {
        let status = try line(StreamEvent(time: 0, payload: .status(ConnectionStatusChange(status: .connecting, attempt: 2, url: "wss://h/s?token=***", error: "503", time: 0))), schema: schema)
        #expect(status["status"] as? String == "connecting")
        #expect(status["attempt"] as? Int == 2)
        #expect(status["error"] as? String == "503")
        let filter = try line(StreamEvent(time: 0, payload: .filter(FilterOutcome(result: .rejected, requested: StreamFilter(whereClause: "speed > 0", outFields: ["name"]), error: "bad"))), schema: schema)
        #expect(filter["result"] as? String == "rejected")
        #expect((filter["filter"] as? [String: Any])?["where"] as? String == "speed > 0")
        let error = try line(StreamEvent(time: 0, payload: .error(StreamErrorReport(source: .message, message: "invalid JSON at byte 3: x", count: 4))), schema: schema)
        #expect(error["source"] as? String == "message" && error["count"] as? Int == 4)
        let response = try line(StreamEvent(time: 0, payload: .response(ControlResponse(id: .int(9), command: "status", ok: true, result: .object(JSONObject([("entities", .int(3))]))))), schema: schema)
        #expect(response["id"] as? Int == 9)
        #expect((response["result"] as? [String: Any])?["entities"] as? Int == 3)
        let dropped = try line(StreamEvent(time: 0, payload: .dropped(count: 5, total: 12)), schema: schema)
        #expect(dropped["count"] as? Int == 5 && dropped["total"] as? Int == 12)
    }

    /// GeoJSON: an observation is a Point Feature in WGS84 (Web Mercator converted through PROJ, checked against the
    /// spherical formula written here), its id the observation's; the bookkeeping properties are es_… and never rename
    /// an attribute (one named "time" keeps its name), dates are ISO-8601 text; every other event goes to the side
    /// output as an Esri JSON line.
    @Test func geoJSONFeatures() throws {
        var mercator = observation
        let projected = ProjectionOracles.webMercator(longitude: -111.9, latitude: 40.6)
        mercator.geometry = Point(x: projected.x, y: projected.y, wkid: 3857)
        let feature = try line(StreamEvent(time: 1, payload: .store(.observation(entity, observationID: 42, mercator))), format: .geojson, schema: schema)
        #expect(feature["type"] as? String == "Feature")
        #expect(feature["id"] as? Int == 42)
        let geometry = try #require(feature["geometry"] as? [String: Any])
        let coordinates = try #require(geometry["coordinates"] as? [Double])
        #expect(abs(coordinates[0] - -111.9) < 1e-9 && abs(coordinates[1] - 40.6) < 1e-9)
        let properties = try #require(feature["properties"] as? [String: Any])
        #expect(properties["es_track"] as? String == "TRUCK 7" && properties["es_entity"] as? Int == 7 && properties["es_observation"] as? Int == 42)
        #expect(properties["es_received"] as? String == "1970-01-01T00:00:00.001Z" && properties["es_primed"] as? Bool == false)
        #expect(properties["speed"] as? Double == 12.5)
        #expect(properties["time"] as? String == "2023-11-14T22:13:20.000Z", "a date attribute is ISO-8601 text, under its own name")
        #expect(properties["event"] == nil && properties["epoch"] == nil)

        var formatter = JSONLinesFormatter(format: .geojson, schema: schema)
        var output = JSONWriter(), side = JSONWriter()
        let status = StreamEvent(time: 0, payload: .status(ConnectionStatusChange(status: .connected, attempt: 0, url: nil, error: nil, time: 0)))
        #expect(!formatter.append(status, to: &output, side: &side))
        #expect(output.count == 0)
        let sideLine = try #require(JSONSerialization.jsonObject(with: Data(side.bytes)) as? [String: Any])
        #expect(sideLine["event"] as? String == "status" && sideLine["status"] as? String == "connected")
        let received = StreamEvent(time: 1, payload: .store(.entityReceived(entity, observationID: 42, observation)))
        #expect(!formatter.append(received, to: &output, side: &side), "entity-received is not a second copy of the feature")
    }

    /// CSV: a header (x, y, the bookkeeping, every schema field), then one row per observation: x/y in WGS84 (or as
    /// given with no target), text quoted as RFC 4180 says, dates as ISO-8601, CRLF line ends.
    @Test func csvRows() throws {
        var formatter = JSONLinesFormatter(format: .csv, schema: schema)
        var output = JSONWriter(), side = JSONWriter()
        var quoted = observation
        quoted.attributes = [.string("TRUCK, \"7\""), .double(.nan), .date(milliseconds: 0)]
        let projected = ProjectionOracles.webMercator(longitude: -111.9, latitude: 40.6)
        quoted.geometry = Point(x: projected.x, y: projected.y, wkid: 3857)
        #expect(formatter.append(StreamEvent(time: 1, payload: .store(.observation(entity, observationID: 1, observation))), to: &output, side: &side))
        #expect(formatter.append(StreamEvent(time: 2, payload: .store(.observation(entity, observationID: 2, quoted))), to: &output, side: &side))
        let text = String(decoding: output.bytes, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty)
        #expect(lines[0] == "x,y,es_track,es_entity,es_observation,es_received,es_primed,name,speed,time")
        #expect(lines[1] == "-111.9,40.6,TRUCK 7,7,1,1970-01-01T00:00:00.001Z,false,TRUCK 7,12.5,2023-11-14T22:13:20.000Z")
        let cells = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(abs((Double(cells[0]) ?? 0) - -111.9) < 1e-9 && abs((Double(cells[1]) ?? 0) - 40.6) < 1e-9)
        #expect(lines[2].hasSuffix(",2,1970-01-01T00:00:00.002Z,false,\"TRUCK, \"\"7\"\"\",,1970-01-01T00:00:00.000Z"))
        #expect(side.count == 0)
    }
}
