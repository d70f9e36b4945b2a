import EntityStreamCore
import Foundation
import EntityStreamHotSpots
import EntityStreamProjection
import EntityStreamTestSupport
import Testing
import EntityStreamModel

/// 8×8 incidents on a 100-unit lattice, with a cluster of extra incidents in the lower-left 2×2 cells.
private func clusteredIncidents(coordinates: HotSpotCoordinates = .projected, origin: (Double, Double) = (0, 0), spacing: Double = 100) -> HotSpotInput {
    var input = HotSpotInput(kind: .incidents, coordinates: coordinates)
    for r in 0..<8 {
        for c in 0..<8 {
            let copies = r < 2 && c < 2 ? 6 : 1
            for _ in 0..<copies { input.append(x: origin.0 + Double(c) * spacing + 10, y: origin.1 + Double(r) * spacing + 10) }
        }
    }
    return input
}

@Suite("Hot spots: output features, feature sets and summaries", .bounded)
struct OutputTests {
    /// Fishnet results become cell polygons with JOIN_COUNT, the Gi* fields, SOURCE_ID -1 and 1-based object ids.
    @Test func fishnetFeatures() throws {
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 100), distanceBand: 150, fdr: false))
            .run(clusteredIncidents())
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { Int64($0) }, wkid: 2913)
        #expect(output.count == 64 && output.geometryType == "esriGeometryPolygon")
        let first = output.feature(0)
        #expect(first.attributes.keys == ["OBJECTID", "SOURCE_ID", "JOIN_COUNT", "GiZScore", "GiPValue", "NNeighbors", "Gi_Bin"])
        #expect(first.attributes["OBJECTID"] == .int(1) && first.attributes["SOURCE_ID"] == .int(-1) && first.attributes["JOIN_COUNT"] == .int(6))
        guard case .polygon(let rings, let wkid)? = first.geometry else { Issue.record("not a polygon"); return }
        // The incidents' extent starts at (10, 10): the first cell is [10, 110) × [10, 110), clockwise from the lower left.
        #expect(wkid == 2913)
        #expect(rings[0].map { [$0.x, $0.y] } == [[10, 10], [10, 110], [110, 110], [110, 10], [10, 10]])
        let counts: [Int64] = (0..<output.count).compactMap { output.feature($0).attributes["JOIN_COUNT"]?.intValue }
        let total: Int64 = counts.reduce(0, +)
        #expect(total == 84)
        let bin: Int64 = output.feature(0).attributes["Gi_Bin"]?.intValue ?? 0
        #expect(bin > 0)
    }

    /// The feature set is valid JSON that the GP reader reads back to the same features.
    @Test func featureSetRoundTrip() throws {
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .collectEvents, distanceBand: 150, fdr: true, force: true))
            .run(clusteredIncidents())
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { Int64($0) * 10 }, wkid: 2913)
        let set = try GPFeatureRecordSet(json: try JSONParser.parse(output.featureSet()))
        #expect(set.wkid == 2913 && set.geometryType == "esriGeometryPoint")
        #expect(set.features == (0..<output.count).map(output.feature))
        #expect(set.features.first?.attributes["ICOUNT"] == .int(6))
        #expect(set.features.first?.attributes["SOURCE_ID"] == .int(0))
    }

    /// Results are written in the spatial reference asked for, through PROJ:
    /// WGS84 results in Web Mercator equal the forward spherical Mercator
    /// (written here), Oregon North feet in WGS84 equal the inverse of the
    /// Lambert formulas (checked by projecting back with them), a fishnet
    /// cell's corners are each converted; an unknown outSR is refused by name.
    @Test func outputSpatialReferences() throws {
        let input = clusteredIncidents(coordinates: .geographic, origin: (-111.9, 40.7), spacing: 0.001)
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .collectEvents, distanceBand: 150)).run(input)
        let output = try HotSpotOutput(result: result, valueField: nil, sourceID: { _ in 0 }, wkid: 4326, outSR: 102100)
        #expect(output.wkid == 3857)
        let feature = result.features[0]
        let mercator = ProjectionOracles.webMercator(longitude: feature.x, latitude: feature.y)
        let point = try #require(output.point(0))
        #expect(abs(point.x - mercator.x) < 1e-6 && abs(point.y - mercator.y) < 1e-6 && point.wkid == 3857)

        let feet = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 100), distanceBand: 150, fdr: false))
            .run(clusteredIncidents(origin: (7_650_000, 680_000)))
        let inWGS84 = try HotSpotOutput(result: feet, valueField: nil, sourceID: { _ in 0 }, wkid: 2913, outSR: 4152)
        guard case .polygon(let rings, let wkid)? = inWGS84.feature(0).geometry else { Issue.record("not a polygon"); return }
        #expect(wkid == 4152)
        let cell = feet.features[0]
        let expected = [(cell.x - 50, cell.y - 50), (cell.x - 50, cell.y + 50), (cell.x + 50, cell.y + 50), (cell.x + 50, cell.y - 50)]
        for (corner, (x, y)) in zip(rings[0], expected) {
            let back = ProjectionOracles.oregonNorthFeet(longitude: corner.x, latitude: corner.y)
            #expect(abs(back.x - x) < 0.01 && abs(back.y - y) < 0.01)
        }
        #expect(throws: ProjectionError.self) { try HotSpotOutput(result: result, valueField: nil, sourceID: { _ in 0 }, wkid: 2913, outSR: 99999) }
    }

    /// The summary says n, the band and why, FDR, the bins (adding up to n) and the exclusions; the messages say the same in words.
    @Test func summary() throws {
        var input = clusteredIncidents()
        input.append(x: nil, y: 1)
        input.append(x: .nan, y: 1)
        let result = try HotSpotAnalysis(options: HotSpotOptions(aggregation: .fishnet(cellSize: 100))).run(input)
        let members = HotSpotSummaryJSON.members(result)
        #expect(members["n"] == .int(64))
        #expect(members["excluded"]?["total"] == .int(2) && members["excluded"]?["noGeometry"] == .int(1) && members["excluded"]?["invalidCoordinate"] == .int(1))
        #expect(members["aggregation"]?["cellSize"] == .double(100) && members["aggregation"]?["cellSizeReason"] == .string("given"))
        #expect(members["distanceBand"]?["value"]?.doubleValue == result.summary.distanceBand.band)
        #expect(members["distanceBand"]?["choice"]?.stringValue != nil && members["distanceBand"]?["reason"]?.stringValue != nil)
        #expect(members["fdr"] == .bool(true))
        let bins = (-3...3).compactMap { members["bins"]?[String($0)]?.intValue }
        #expect(bins.count == 7 && bins.reduce(0, +) == 64)
        let messages = HotSpotSummaryJSON.messages(result, unit: "feet")
        #expect(messages.contains { $0.contains("86 records") && $0.contains("2 excluded") })
        #expect(messages.contains { $0.hasPrefix("Scale of analysis:") && $0.contains("feet") })
    }

    /// The GP result reader keeps points, polygons and null geometries, and names a feature whose geometry it cannot read.
    @Test func featureSetReader() throws {
        let text = #"{"geometryType":"esriGeometryPolygon","spatialReference":{"latestWkid":3857},"features":[{"attributes":{"a":1},"geometry":{"rings":[[[0,0],[0,1],[1,1],[0,0]]]}},{"attributes":{"a":2},"geometry":null},{"attributes":{"a":3},"geometry":{"x":5,"y":6}}]}"#
        let set = try GPFeatureRecordSet(json: try JSONParser.parse(Array(text.utf8)))
        #expect(set.wkid == 3857 && set.features.count == 3)
        #expect(set.features[1].geometry == nil && set.features[2].geometry == .point(Point(x: 5, y: 6, wkid: 3857)))
        let bad = #"{"features":[{"attributes":{},"geometry":{"paths":[[[0,0],[1,1]]]}}]}"#
        #expect(throws: GPRESTError.self) { try GPFeatureRecordSet(json: try JSONParser.parse(Array(bad.utf8))) }
        let error = #"{"error":{"code":500,"message":"boom"}}"#
        #expect(throws: GPRESTError.service(ArcGISError(code: 500, message: "boom"))) { try GPFeatureRecordSet(json: try JSONParser.parse(Array(error.utf8))) }
    }
}
