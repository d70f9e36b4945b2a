import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private let schema = Schema(fields: [Field(name: "name", type: .string), Field(name: "raster", type: .string)], trackIDField: "name")
private let entity = EntityReference(entityID: 3, trackID: .string("V"))
private let observation = Observation(geometry: Point(x: -122.5, y: 47.5, wkid: 4326), attributes: [.string("V"), .string("mine")], receivedAt: 1_000)

/// The enrichment of two rasters: `dem` with a cell, `cover` with none.
private func enrichment() -> ObservationEnrichment {
    let layout = ObservationEnrichment.Layout(names: ["dem", "cover"])
    var attributes = JSONObject()
    attributes.append(key: "Band_0", value: .double(1423.5))
    attributes.append(key: "Pixel.Type", value: .string("float32"))
    let cell = ObservationEnrichment.Cell(raster: "dem", attributes: attributes)
    return layout.enrichment { $0 == 0 ? cell : nil }
}

private func parse(_ event: StreamEvent, _ format: OutputFormat) throws -> [String: Any] {
    var formatter = JSONLinesFormatter(format: format, schema: schema)
    var writer = JSONWriter()
    formatter.append(event, to: &writer)
    return try #require(JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
}

@Suite("observation enrichment", .bounded)
struct ObservationEnrichmentTests {
    /// The layout writes every raster in order, a cell's attributes or null, as one JSON object.
    @Test func layoutWritesEveryRaster() throws {
        let value = enrichment()
        #expect(String(decoding: value.rasterText, as: UTF8.self) == #"{"dem":{"Band_0":1423.5,"Pixel.Type":"float32"},"cover":null}"#)
        #expect(value.raster["cover"] == .null && value.raster["dem"]?["Band_0"] == .double(1423.5))
        #expect(String(decoding: ObservationEnrichment.Layout(names: [#"a"b"#]).empty().rasterText, as: UTF8.self) == #"{"a\"b":null}"#)
    }

    /// A cell is written under its own raster's name only: a cell of another raster than the layout names there is null.
    @Test func cellsGoUnderTheirRaster() throws {
        var attributes = JSONObject()
        attributes.append(key: "Band_0", value: .int(7))
        let cell = ObservationEnrichment.Cell(raster: "world", attributes: attributes)
        let layout = ObservationEnrichment.Layout(names: ["world"])
        #expect(String(decoding: layout.enrichment { _ in cell }.rasterText, as: UTF8.self) == #"{"world":{"Band_0":7}}"#)
        #expect(String(decoding: layout.enrichment { _ in nil }.rasterText, as: UTF8.self) == #"{"world":null}"#)
        let other = ObservationEnrichment.Layout(names: ["dem"])
        #expect(String(decoding: other.enrichment { _ in cell }.rasterText, as: UTF8.self) == #"{"dem":null}"#)
        let two = ObservationEnrichment.Layout(names: ["dem", "world"])
        #expect(String(decoding: two.enrichment { _ in cell }.rasterText, as: UTF8.self) == #"{"dem":null,"world":{"Band_0":7}}"#)
    }

    /// Esri lines carry "raster" after the attributes; GeoJSON features "es_raster" among the properties,
    /// which never renames the data's own attribute named raster.
    @Test func formatterWritesBothFormats() throws {
        let event = StreamEvent(time: 1_000, payload: .store(.observation(entity, observationID: 9, observation)), enrichment: enrichment())
        let esri = try parse(event, .esri)
        let raster = try #require(esri["raster"] as? [String: Any])
        #expect((raster["dem"] as? [String: Any])?["Band_0"] as? Double == 1423.5 && raster["cover"] is NSNull)
        #expect((esri["attributes"] as? [String: Any])?["raster"] as? String == "mine")
        let geojson = try parse(event, .geojson)
        let properties = try #require(geojson["properties"] as? [String: Any])
        #expect(((properties["es_raster"] as? [String: Any])?["dem"] as? [String: Any])?["Pixel.Type"] as? String == "float32")
        #expect(properties["raster"] as? String == "mine")
        // Without an enrichment nothing changes: the attribute keeps its name.
        let plain = try parse(StreamEvent(time: 1_000, payload: .store(.observation(entity, observationID: 9, observation))), .geojson)
        #expect((plain["properties"] as? [String: Any])?["raster"] as? String == "mine")
        #expect(try parse(StreamEvent(time: 1_000, payload: .store(.observation(entity, observationID: 9, observation))), .esri)["raster"] == nil)
    }
}
