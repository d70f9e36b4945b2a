import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures

/// Parses `pairs` as REST parameters.
private func parse(_ pairs: [(String, String)]) throws -> FeatureQuery {
    try FeatureQuery(parameters: pairs.map { (name: $0.0, value: $0.1) })
}

@Suite("Feature query parameters", .bounded)
struct FeatureQueryParameterTests {
    /// Every supported parameter is read into the model, names case-insensitively.
    @Test func readsEveryParameter() throws {
        let query = try parse([
            ("where", "wind > 50"), ("objectIds", "3, 1,2"), ("time", "967766400000,null"),
            ("geometry", #"{"xmin":-80,"ymin":20,"xmax":-70,"ymax":30}"#), ("geometryType", "esriGeometryEnvelope"),
            ("inSR", "4326"), ("spatialRel", "esriSpatialRelEnvelopeIntersects"), ("OUTFIELDS", "name, wind"),
            ("returnGeometry", "FALSE"), ("outSR", #"{"wkid":102100}"#), ("orderByFields", "wind DESC, name"),
            ("resultOffset", "10"), ("resultRecordCount", "5"), ("maxRecordCountFactor", "3"), ("f", "pjson"),
            ("token", "whatever"), ("returnZ", "false"), ("someCustomThing", "1"),
        ])
        #expect(query.whereClause == "wind > 50")
        #expect(query.objectIDs == [3, 1, 2])
        #expect(query.time == (try TimeExtent(start: 967_766_400_000, end: nil)))
        #expect(query.geometry == Envelope(xmin: -80, ymin: 20, xmax: -70, ymax: 30, wkid: 4326))
        #expect(query.spatialRelationship == .envelopeIntersects)
        #expect(query.outFields == ["name", "wind"])
        #expect(query.returnGeometry == false)
        #expect(query.outSpatialReference == 3857, "102100 is Web Mercator, 3857")
        #expect(query.orderBy == [OrderByField(field: "wind", descending: true), OrderByField(field: "name")])
        #expect(query.resultOffset == 10)
        #expect(query.resultRecordCount == 5)
        #expect(query.maxRecordCountFactor == 3)
        #expect(query.format == .pjson)
    }

    /// ArcGIS's defaults: no outFields means the object id only, `*` every field, geometry on, f=json.
    @Test func defaults() throws {
        let bare = try parse([])
        #expect(bare.outFields == [])
        #expect(bare.returnGeometry)
        #expect(bare.format == .json)
        #expect(bare.time == nil)
        #expect(try parse([("outFields", "*")]).outFields == nil)
        #expect(try parse([("time", "null,null")]).time == nil)
        #expect(try parse([("time", "1000")]).time == (try TimeExtent(start: 1000, end: 1000)))
    }

    /// The client's encoding reads back to the same query.
    @Test func encodingRoundTrips() throws {
        var query = FeatureQuery(whereClause: "name = 'A'", objectIDs: [5, 6], time: try TimeExtent(start: nil, end: 99),
                                 geometry: Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4, wkid: 3857), outFields: ["a", "b"],
                                 returnGeometry: false, outSpatialReference: 4326, orderBy: [OrderByField(field: "a", descending: true)],
                                 resultOffset: 7, resultRecordCount: 8, returnCountOnly: true, format: .geojson)
        query.outStatistics = [StatisticDefinition(type: .avg, field: "Diabetes_Percent")]
        query.groupByFieldsForStatistics = ["State"]
        query.havingClause = "AVG(Diabetes_Percent) > 5"
        let decoded = try FeatureQuery(parameters: query.parameters.map { (name: $0.0, value: $0.1) })
        #expect(decoded == query)
        #expect(query.parameters.first! == ("f", "geojson"))
        let all = FeatureQuery()
        #expect(all.parameters.contains { $0 == ("outFields", "*") })
        #expect(all.parameters.contains { $0 == ("where", "1=1") })
        #expect(try FeatureQuery(parameters: all.parameters.map { (name: $0.0, value: $0.1) }).outFields == nil)
    }

    /// Each bad parameter is refused with its name and the reason, as ArcGIS error JSON with code 400.
    @Test(arguments: [
        (("time", "969580800000,967766400000"), "time", "before the start"),
        (("time", "2000-13-01"), "time", "month 13"),
        (("time", "1,2,3"), "time", "START,END"),
        (("objectIds", "1,x"), "objectIds", "'x' is not an object id"),
        (("geometry", "1,2,3"), "geometry", "xmin,ymin,xmax,ymax"),
        (("geometry", #"{"paths":[[[0,0],[1,0],[1,1]]]}"#), "geometry", "only envelope, point and polygon"),
        (("geometry", #"{"rings":[[[0,0],[1,0]]]}"#), "geometry", "at least 3 vertices"),
        (("geometry", #"{"rings":[[[0,0],[1,"a"],[1,1]]]}"#), "geometry", "not [x, y] numbers"),
        (("geometryType", "esriGeometryPolyline"), "geometryType", "esriGeometryEnvelope, esriGeometryPoint or esriGeometryPolygon"),
        (("inSR", "web"), "inSR", "is not a spatial reference"),
        (("inSR", "99999"), "inSR", "unknown spatial reference wkid 99999"),
        (("spatialRel", "esriSpatialRelWithin"), "spatialRel", "not supported"),
        (("returnGeometry", "yes"), "returnGeometry", "not true or false"),
        (("outSR", "-1"), "outSR", "is not a spatial reference"),
        (("orderByFields", "a UP"), "orderByFields", "'UP' is not ASC or DESC"),
        (("orderByFields", "a,,b"), "orderByFields", "empty entry"),
        (("resultOffset", "-1"), "resultOffset", "≥ 0"),
        (("resultRecordCount", "0"), "resultRecordCount", "≥ 1"),
        (("maxRecordCountFactor", "9"), "maxRecordCountFactor", "between 1 and 5"),
        (("returnCountOnly", "1"), "returnCountOnly", "not true or false"),
        (("f", "html"), "f", "json, pjson or geojson"),
        (("outStatistics", "[{\"statisticType\":\"median\",\"onStatisticField\":\"a\"}]"), "outStatistics", "'median' is not one of"),
        (("outStatistics", "{}"), "outStatistics", "non-empty JSON array"),
        (("havingClause", "COUNT(a) > 1"), "havingClause", "only with outStatistics"),
        (("having", "COUNT(a) > 1"), "having", "only with outStatistics"),
        (("geometryPrecision", "18"), "geometryPrecision", "between 0 and 17"),
        (("geometryPrecision", "two"), "geometryPrecision", "not a whole number"),
        (("resultType", "page"), "resultType", "none, standard or tile"),
        (("distance", "-1"), "distance", "a number ≥ 0"),
        (("distance", "10"), "distance", "needs a geometry"),
        (("units", "esriSRUnit_Parsec"), "units", "is not a unit"),
        (("quantizationParameters", "{\"tolerance\":1}"), "quantizationParameters", "has no extent"),
        (("quantizationParameters", "[1]"), "quantizationParameters", "not a JSON object"),
        (("returnExtentOnly", "maybe"), "returnExtentOnly", "not true or false"),
    ] as [((String, String), String, String)])
    func refusesBadParameters(pair: (String, String), parameter: String, expected: String) {
        #expect {
            _ = try parse([pair])
        } throws: { error in
            guard let error = error as? FeatureQueryError else { return false }
            let arcGIS = error.arcGISError
            return error.parameter == parameter && error.reason.contains(expected)
                && arcGIS.code == 400 && arcGIS.details == ["'\(parameter)' parameter is invalid: \(error.reason)"]
        }
    }

    /// A parameter repeated with different values is refused; repeated identically it is accepted.
    @Test func repeatedParameters() throws {
        #expect(try parse([("where", "a=1"), ("WHERE", "a=1")]).whereClause == "a=1")
        #expect(throws: FeatureQueryError.self) { _ = try parse([("where", "a=1"), ("where", "a=2")]) }
        // ArcGIS: with returnIdsOnly and returnCountOnly both, the count takes precedence.
        let both = try parse([("returnCountOnly", "true"), ("returnIdsOnly", "true")])
        #expect(both.returnCountOnly && !both.returnIDsOnly)
        #expect(throws: FeatureQueryError.self) { _ = try parse([("having", "COUNT(*) > 1"), ("havingClause", "COUNT(*) > 2"), ("outStatistics", #"[{"statisticType":"count","onStatisticField":"a"}]"#)]) }
        #expect(throws: FeatureQueryError.self) {
            _ = try parse([("geometry", #"{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":4326}}"#), ("inSR", "2056")])
        }
    }

    /// ArcGIS error JSON is written and read back; a body without `error` is not an error.
    @Test func arcGISErrorJSON() throws {
        let error = ArcGISError.invalidParameter("where", "unknown field 'x'")
        let bytes = error.json()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid: unknown field 'x'"]}}"#)
        #expect(ArcGISError(bytes: bytes) == error)
        #expect(ArcGISError(bytes: Array(#"{"error":{"code":"498","message":"Invalid Token"}}"#.utf8))?.isTokenError == true)
        #expect(ArcGISError(bytes: Array(#"{"count":3}"#.utf8)) == nil)
        #expect(ArcGISError(bytes: Array("<html>".utf8)) == nil)
        #expect(error.description == "ArcGIS error 400: Unable to complete operation. ('where' parameter is invalid: unknown field 'x')")
    }
}
