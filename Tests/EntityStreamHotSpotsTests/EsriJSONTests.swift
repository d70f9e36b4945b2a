import EntityStreamTestSupport
import Testing
import EntityStreamCore
@testable import EntityStreamHotSpots
import EntityStreamModel

@Suite("Hot-spot results as Esri JSON", .bounded)
struct EsriJSONTests {
    /// Weighted points become a point feature set whose attributes carry each feature's figures (null p when undefined).
    @Test func pointFeatureSet() throws {
        var x = GoldenVectorTests.x, y = GoldenVectorTests.y, values = GoldenVectorTests.values
        x.append(500)
        y.append(500)
        values.append(1)
        let result = try HotSpotAnalysis(options: HotSpotOptions(distanceBand: 15, fdr: false, minimumFeatures: 7))
            .run(Oracles.weighted(x, y, values))
        let document = try JSONParser.parse(HotSpotEsriJSON.featureSet(result, valueField: "SPEED", wkid: 2913))
        #expect(document["geometryType"]?.stringValue == "esriGeometryPoint")
        #expect(document["spatialReference"]?["wkid"]?.intValue == 2913)
        #expect(document["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            == ["OBJECTID", "SOURCE_ID", "SPEED", "GiZScore", "GiPValue", "NNeighbors", "Gi_Bin"])
        let features = try #require(document["features"]?.arrayValue)
        #expect(features.count == 7)
        for (index, feature) in result.features.enumerated() {
            let attributes = try #require(features[index]["attributes"])
            #expect(attributes["OBJECTID"]?.intValue == Int64(index + 1))
            #expect(attributes["SPEED"]?.doubleValue == feature.value)
            #expect(attributes["GiZScore"]?.doubleValue == feature.zScore)
            #expect(attributes["Gi_Bin"]?.intValue == Int64(feature.bin))
            #expect(features[index]["geometry"]?["x"]?.doubleValue == x[index])
        }
        #expect(features[6]["attributes"]?["GiPValue"] == .null && features[6]["attributes"]?["NNeighbors"]?.intValue == 0)
    }

    /// A fishnet becomes polygons with integer JOIN_COUNT and closed rings.
    @Test func fishnetFeatureSet() throws {
        var input = HotSpotInput(kind: .incidents)
        for i in 0..<400 { input.append(x: Double(i % 20) * 10, y: Double(i / 20) * 10 + Double(i % 7)) }
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 25), distanceBand: 60)).run(input)
        let document = try JSONParser.parse(HotSpotEsriJSON.featureSet(result))
        #expect(document["geometryType"]?.stringValue == "esriGeometryPolygon" && document["spatialReference"] == nil)
        let first = try #require(document["features"]?[0])
        #expect(first["attributes"]?["JOIN_COUNT"] == .int(Int64(result.features[0].value)))
        let ring = try #require(first["geometry"]?["rings"]?[0]?.arrayValue)
        #expect(ring.count == 5 && ring.first == ring.last)
    }
}
