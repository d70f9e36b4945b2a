import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

@Suite("Layer description and paging plan", .bounded)
struct LayerDescriptionTests {
    /// A table's description has ArcGIS's members (time info with the data's extent, object id field, paging capabilities) and reads back equal.
    @Test func buildsAndReadsBack() throws {
        let table = try FeatureFile.load(bytes: Array("storm,when,lat,lon\nA,2000-09-01T00:00:00Z,10.5,-20.5\nB,2000-09-22T00:00:00Z,12.5,-22.5\n".utf8),
                                         fileName: "h.csv", options: FeatureLoadOptions(mapping: try FeatureColumnMapping(parsing: "track=storm"), name: "Hurricanes"))
        let description = LayerDescription(table: table, maxRecordCount: 7)
        let value = try JSONParser.parse(description.json())
        #expect(value["id"] == .int(0))
        #expect(value["name"] == .string("Hurricanes"))
        #expect(value["type"] == .string("Feature Layer"))
        #expect(value["geometryType"] == .string("esriGeometryPoint"))
        #expect(value["objectIdField"] == .string("OBJECTID"))
        #expect(value["maxRecordCount"] == .int(7))
        #expect(value["capabilities"] == .string("Query"))
        #expect(value["timeInfo"]?["startTimeField"] == .string("when"))
        #expect(value["timeInfo"]?["trackIdField"] == .string("storm"))
        #expect(value["timeInfo"]?["timeExtent"] == .array([.int(967_766_400_000), .int(969_580_800_000)]))
        #expect(value["advancedQueryCapabilities"]?["supportsPagination"] == .bool(true))
        #expect(value["advancedQueryCapabilities"]?["supportsOrderBy"] == .bool(true))
        #expect(value["extent"]?["spatialReference"]?["wkid"] == .int(4326))
        #expect(value["fields"]?.arrayValue?.map { $0["type"]?.stringValue ?? "" }
            == ["esriFieldTypeOID", "esriFieldTypeString", "esriFieldTypeDate", "esriFieldTypeDouble", "esriFieldTypeDouble"])
        let read = try LayerDescription(json: description.json())
        #expect(read == description)
        #expect(read.supportsPagination)
        #expect(read.effectiveMaxRecordCount == 7)
    }

    /// A description without advancedQueryCapabilities or maxRecordCount gets ArcGIS's defaults: no pagination, 1000 records.
    @Test func oldServerDefaults() throws {
        let read = try LayerDescription(json: Array(#"{"id":0,"name":"Old","type":"Feature Layer","geometryType":"esriGeometryPoint","objectIdField":"FID","fields":[{"name":"FID","type":"esriFieldTypeOID"}]}"#.utf8))
        #expect(!read.supportsPagination)
        #expect(read.effectiveMaxRecordCount == 1000)
        #expect(read.timeInfo == nil)
    }

    /// Errors, non-JSON, service roots and stream services are told apart.
    @Test func refusesWhatIsNotALayer() {
        func error(_ text: String) -> LayerDescriptionError? {
            do { _ = try LayerDescription(json: Array(text.utf8)); return nil } catch { return error }
        }
        #expect(error(#"{"error":{"code":499,"message":"Token Required","details":[]}}"#) == .arcGIS(.tokenRequired))
        if case .notJSON? = error("<!DOCTYPE html><html>") {} else { Issue.record("HTML is not JSON") }
        if case .notALayer(let detail)? = error(#"{"layers":[{"id":0,"name":"Hurricanes"}],"tables":[]}"#) {
            #expect(detail.contains("add /<id>") && detail.contains("0 (Hurricanes)"))
        } else { Issue.record("a service root is not a layer") }
        if case .notALayer? = error(#"{"streamUrls":[]}"#) {} else { Issue.record("a stream service is not a layer") }
        let nameless = error(#"{"fields":[{"type":"esriFieldTypeString"}]}"#)
        #expect(nameless == .fields(.field(index: 0, .fieldWithoutName)))
        #expect(nameless?.description == "the layer description is malformed: fields[0]: a field has no name")
    }

    /// The service roots list layers and tables and read back.
    @Test func serviceRoots() throws {
        let layer = LayerDescription(id: 0, name: "Points", type: "Feature Layer", geometryType: "esriGeometryPoint", objectIDField: "OBJECTID", fields: [], spatialReference: 4326)
        let table = LayerDescription(id: 1, name: "Counties", type: "Table", geometryType: nil, objectIDField: "OBJECTID", fields: [])
        let root = FeatureServiceRoot(kind: .featureServer, name: "S", layers: [layer, table])
        let read = try FeatureServiceRoot(json: root.json(), kind: .featureServer)
        #expect(read.layers == [FeatureServiceRoot.Entry(id: 0, name: "Points", type: "Feature Layer", geometryType: "esriGeometryPoint")])
        #expect(read.tables == [FeatureServiceRoot.Entry(id: 1, name: "Counties", type: "Table", geometryType: nil)])
        #expect(read.spatialReference == 4326)
    }

    /// With pagination the pager asks page after page in a stable order (orderBy, then the object id) while more remain, within the query's own offset and limit.
    @Test func pagerPages() throws {
        let layer = try LayerDescription(json: Array(#"{"objectIdField":"OID","maxRecordCount":7,"fields":[],"advancedQueryCapabilities":{"supportsPagination":true,"supportsOrderBy":true}}"#.utf8))
        var pager = FeatureQueryPager(query: FeatureQuery(orderBy: [OrderByField(field: "t", descending: true)], resultOffset: 3, resultRecordCount: 16), layer: layer)
        #expect(pager.strategy == .pages(size: 7))
        var asked: [(Int?, Int?)] = []
        while let request = pager.nextRequest() {
            #expect(request.orderBy == [OrderByField(field: "t", descending: true), OrderByField(field: "OID")])
            asked.append((request.resultOffset, request.resultRecordCount))
            try pager.received(featureCount: request.resultRecordCount ?? 0, exceededTransferLimit: true)
        }
        #expect(asked.map(\.0) == [3, 10, 17])
        #expect(asked.map(\.1) == [7, 7, 2])
        #expect(pager.delivered == 16)
        #expect(pager.requests == 3)
        var stuck = FeatureQueryPager(query: FeatureQuery(), layer: layer)
        _ = stuck.nextRequest()
        #expect(throws: FeatureQueryPagerError.self) { try stuck.received(featureCount: 0, exceededTransferLimit: true) }
    }

    /// Without pagination the pager asks for the ids, then the features in batches of at most maxRecordCount, in id order.
    @Test func pagerFallsBackToObjectIDBatches() throws {
        let layer = try LayerDescription(json: Array(#"{"objectIdField":"OID","maxRecordCount":3,"fields":[]}"#.utf8))
        var pager = FeatureQueryPager(query: FeatureQuery(whereClause: "a > 1", resultRecordCount: 7), layer: layer)
        #expect(pager.strategy == .objectIDBatches(size: 3))
        let next = pager.nextRequest()
        let first = try #require(next)
        #expect(first.returnIDsOnly && first.resultOffset == nil && first.whereClause == "a > 1")
        #expect(pager.expectsObjectIDs)
        try pager.received(objectIDs: [9, 2, 5, 2, 7, 1, 8, 4, 3])
        var batches: [[Int64]] = []
        while let request = pager.nextRequest() {
            #expect(!request.returnIDsOnly && request.resultOffset == nil && request.resultRecordCount == nil)
            batches.append(request.objectIDs ?? [])
            try pager.received(featureCount: request.objectIDs?.count ?? 0, exceededTransferLimit: false)
        }
        #expect(batches == [[1, 2, 3], [4, 5, 7], [8]])
        #expect(pager.delivered == 7)
        var cut = FeatureQueryPager(query: FeatureQuery(), layer: layer)
        _ = cut.nextRequest()
        try cut.received(objectIDs: [1, 2, 3])
        _ = cut.nextRequest()
        #expect(throws: FeatureQueryPagerError.self) { try cut.received(featureCount: 2, exceededTransferLimit: true) }
    }
}
