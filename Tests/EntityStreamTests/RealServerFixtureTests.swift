import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamHotSpots
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// The bytes of fixture `name` in Fixtures/RealServers (answers of real
/// ArcGIS servers published in arcgis-rest-js, esri-leaflet and GDAL's
/// autotest; see SOURCES.md there).
private func fixture(_ name: String) throws -> [UInt8] {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/RealServers")
    return Array(try Data(contentsOf: directory.appendingPathComponent(name)))
}

/// Our clients read what real ArcGIS servers answer, not only what our own
/// simulator writes (which shares the client's code and would hide a
/// non-standard behaviour in both).
@Suite("Clients against answers of real ArcGIS servers (published fixtures)", .bounded(.io))
struct RealServerFixtureTests {
    /// A query answer from arcgis-rest-js: Web Mercator points without geometry, every attribute read with its type.
    @Test func arcgisRestJSQueryAnswer() throws {
        let page = try FeatureSetReader.page(try fixture("arcgis-rest-js_queryResponse.json"))
        #expect(page.objectIDFieldName == "FID")
        #expect(page.geometryType == "esriGeometryPoint")
        #expect(page.spatialReference == 102100 || page.spatialReference == 3857)
        #expect(page.features.count == 2)
        func value(_ feature: Int, _ name: String) -> AttributeValue? {
            page.schema.index(ofField: name).map { page.features[feature].attribute($0) }
        }
        #expect(value(0, "FID") == .int(1) && value(1, "FID") == .int(2))
        #expect(value(0, "Tree_ID") == .int(102) && value(1, "Tree_ID") == .int(103))
        #expect(value(0, "Cmn_Name") == .string("Siberian elm"))
        #expect(value(1, "LAI") == .double(3.36))
        #expect(!page.exceededTransferLimit)
    }

    /// GDAL's autotest point answer: each esri field type comes through with its value.
    @Test func gdalAutotestPointAnswer() throws {
        let page = try FeatureSetReader.page(try fixture("gdal-autotest_esripoint.json"))
        #expect(page.features.count == 1)
        let feature = page.features[0]
        func value(_ name: String) -> AttributeValue? { page.schema.index(ofField: name).map { feature.attribute($0) } }
        #expect(value("objectid") == .int(1))
        #expect(value("fooSmallInt") == .int(2))
        #expect(value("fooInt") == .int(1_234_567_890))
        #expect(value("fooDouble") == .double(3.4))
        #expect(value("fooString") == .string("56"))
        #expect(page.schema.fields.first { $0.name == "fooDate" }?.type == .date)
        #expect(feature.geometry?.x == 2 && feature.geometry?.y == 49)
    }

    /// esri-leaflet's count, ids and feature answers read by the same readers the client uses.
    @Test func esriLeafletAnswers() throws {
        #expect(try FeatureSetReader.count(try fixture("esri-leaflet_sampleCountResponse.json")) == 1)
        let ids = try FeatureSetReader.objectIDs(try fixture("esri-leaflet_sampleIdsResponse.json"))
        #expect(ids.fieldName == "FID" && ids.ids == [1, 2])
        let page = try FeatureSetReader.page(try fixture("esri-leaflet_sampleQueryResponse.json"))
        #expect(page.features.count == 1)
        #expect(page.features[0].geometry?.x == -122.81 && page.features[0].geometry?.y == 45.48)
    }

    /// The simulator writes an empty extent exactly as ArcGIS Server does (esri-leaflet's NaN fixture), and a
    /// non-empty one with the members esri-leaflet's extent fixture has.
    @Test func extentAnswersMatchArcGIS() throws {
        let ours = try JSONParser.parse(FeatureSetWriter.write(.extent(nil, spatialReference: nil, count: nil), format: .json))
        let theirs = try JSONParser.parse(try fixture("esri-leaflet_sampleNaNExtentResponse.json"))
        #expect(ours == theirs)
        let box = try JSONParser.parse(FeatureSetWriter.write(.extent(Envelope(xmin: -122.66, ymin: 45.5, xmax: -122.65, ymax: 45.51), spatialReference: nil, count: nil),
                                                           format: .json))
        #expect(box == (try JSONParser.parse(try fixture("esri-leaflet_sampleExtentResponse.json"))))
    }

    /// A service root and a layer description from arcgis-rest-js, and its error object.
    @Test func descriptionsAndErrors() throws {
        let root = try FeatureServiceRoot(json: try fixture("arcgis-rest-js_getFeatureServerResponse.json"), kind: .featureServer)
        #expect(root.layers.map(\.id) == [0, 1, 2])
        #expect(root.layers.map(\.geometryType) == ["esriGeometryPoint", "esriGeometryPolygon", "esriGeometryPolygon"])
        #expect(root.maxRecordCount == 1000 && root.spatialReference == 4326)
        let layer = try LayerDescription(json: try fixture("arcgis-rest-js_layerDefinitionSid.json"))
        #expect(layer.name == "hub_annotations" && layer.objectIDField == "OBJECTID" && layer.maxRecordCount == 2000)
        #expect(layer.fields.map(\.name) == ["OBJECTID", "author"])
        #expect(layer.supportsStatistics && !layer.isTable)
        // No advancedQueryCapabilities: no pagination, and no having clause, as ArcGIS's defaults say.
        #expect(!layer.supportsPagination && layer.advancedQueryCapabilities == nil)
        let error = try #require(ArcGISError(json: try JSONParser.parse(try fixture("arcgis-rest-js_genericInvalidResponse.json"))))
        #expect(error.code == 400 && error.message == "Invalid or missing input parameters.")
    }

    /// The 911 Calls Hotspot job answers arcgis-rest-js records: submitted, succeeded with its results, cancelled with messages.
    @Test func geoprocessingJobAnswers() throws {
        let submitted = try GPJobInfo(parsing: try fixture("arcgis-rest-js_GPJobIdResponse.json"))
        #expect(submitted.jobID == "j4fa1db2338f042a19eb68856afabc27e" && submitted.status == .submitted)
        let succeeded = try GPJobInfo(parsing: try fixture("arcgis-rest-js_GPJobInfoWithResults.json"))
        #expect(succeeded.status == .succeeded)
        #expect(succeeded.results.map(\.name).sorted() == ["Hotspot_Raster", "Output_Features"])
        #expect(succeeded.results.first { $0.name == "Output_Features" }?.paramURL == "results/output_features")
        let cancelled = try GPJobInfo(parsing: try fixture("arcgis-rest-js_mockCancelledState.json"))
        #expect(cancelled.status == .cancelled && cancelled.messages.map(\.description) == ["Submitted.", "Cancel complete."])
    }

    /// FeatureLayerClient against a server that answers with the fixtures: the description, a count and the ids.
    @Test func featureLayerClientReadsRealAnswers() async throws {
        let description = try fixture("arcgis-rest-js_layerDefinitionSid.json")
        let count = try fixture("esri-leaflet_sampleCountResponse.json")
        let ids = try fixture("esri-leaflet_sampleIdsResponse.json")
        var configuration = ServerConfiguration()
        configuration.httpResponder = { request in
            if request.path.hasSuffix("/query") {
                if request.query.contains(where: { $0.name == "returnCountOnly" && $0.value == "true" }) { return HTTPServerResponse(body: count) }
                if request.query.contains(where: { $0.name == "returnIdsOnly" && $0.value == "true" }) { return HTTPServerResponse(body: ids) }
                return HTTPServerResponse(status: 400, body: Array("{}".utf8))
            }
            return HTTPServerResponse(body: description)
        }
        let server = try await TransportServer.start(configuration)
        let client = try FeatureLayerClient(layerURL: "\(server.httpBase)/arcgis/rest/services/Hub/FeatureServer/0")
        #expect(try await client.description().name == "hub_annotations")
        #expect(try await client.count(FeatureQuery(whereClause: "author = 'x'")) == 1)
        #expect(try await client.objectIDs(FeatureQuery()) == [1, 2])
        await server.shutdown()
    }
}
