import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamProjection

/// The error `body` throws, as its own type; nil when it throws none.
func thrown<E: Error>(_ body: () throws(E) -> Void) -> E? {
    do { try body() } catch { return error }
    return nil
}

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

    /// Each bad parameter is refused by case, naming the parameter as given, as ArcGIS error JSON with code 400.
    @Test(arguments: [
        (("objectIds", "1,x"), .notObjectID(parameter: "objectIds", "x")),
        (("geometry", #"{"paths":[[[0,0],[1,0],[1,1]]]}"#), .unsupportedGeometry(parameter: "geometry")),
        (("geometry", #"{"rings":[[[0,0],[1,0]]]}"#), .ringTooShort(parameter: "geometry", ring: 0)),
        (("geometry", #"{"rings":[[[0,0],[1,"a"],[1,1]]]}"#), .badVertex(parameter: "geometry", ring: 0)),
        (("geometryType", "esriGeometryPolyline"), .unsupportedGeometryType("esriGeometryPolyline")),
        (("spatialRel", "esriSpatialRelWithin"), .unsupportedSpatialRelationship(parameter: "spatialRel", "esriSpatialRelWithin")),
        (("returnGeometry", "yes"), .notBoolean(parameter: "returnGeometry", "yes")),
        (("orderByFields", "a UP"), .notDirection(parameter: "orderByFields", "UP", entry: "a UP")),
        (("orderByFields", "a,,b"), .emptyOrderEntry(parameter: "orderByFields", list: "a,,b")),
        (("resultOffset", "-1"), .notWholeNumber(parameter: "resultOffset", "-1", minimum: 0)),
        (("resultRecordCount", "0"), .notWholeNumber(parameter: "resultRecordCount", "0", minimum: 1)),
        (("maxRecordCountFactor", "9"), .maxRecordCountFactorOutOfRange(parameter: "maxRecordCountFactor", 9)),
        (("returnCountOnly", "1"), .notBoolean(parameter: "returnCountOnly", "1")),
        (("f", "html"), .unsupportedFormat(parameter: "f", "html")),
        (("outStatistics", "[{\"statisticType\":\"median\",\"onStatisticField\":\"a\"}]"), .unknownStatisticType("median")),
        (("outStatistics", "{}"), .outStatisticsNotList),
        (("havingClause", "COUNT(a) > 1"), .havingWithoutStatistics(parameter: "havingClause")),
        (("having", "COUNT(a) > 1"), .havingWithoutStatistics(parameter: "having")),
        (("geometryPrecision", "18"), .geometryPrecisionOutOfRange(parameter: "geometryPrecision", 18)),
        (("geometryPrecision", "two"), .notWholeNumber(parameter: "geometryPrecision", "two", minimum: 0)),
        (("resultType", "page"), .unknownResultType(parameter: "resultType", "page")),
        (("distance", "-1"), .notDistance(parameter: "distance", "-1")),
        (("distance", "10"), .distanceWithoutGeometry),
        (("units", "esriSRUnit_Parsec"), .unknownUnit(parameter: "units", "esriSRUnit_Parsec")),
        (("quantizationParameters", "{\"tolerance\":1}"), .quantizationWithoutExtent),
        (("quantizationParameters", "[1]"), .quantizationNotObject),
        (("returnExtentOnly", "maybe"), .notBoolean(parameter: "returnExtentOnly", "maybe")),
        (("RETURNextentonly", "maybe"), .notBoolean(parameter: "RETURNextentonly", "maybe")),
    ] as [((String, String), FeatureQueryError)])
    func refusesBadParameters(pair: (String, String), expected: FeatureQueryError) {
        #expect(throws: expected) { _ = try parse([pair]) }
        let arcGIS = expected.arcGISError
        #expect(arcGIS.code == 400 && arcGIS.details == ["'\(expected.parameter)' parameter is invalid: \(expected.reason)"])
    }

    /// A value another parser refuses keeps that parser's error, under the parameter as given.
    @Test func keepsTheInnerError() throws {
        func refusal(_ pair: (String, String)) -> FeatureQueryError? {
            do throws(FeatureQueryError) { _ = try FeatureQuery(parameters: [(name: pair.0, value: pair.1)]) } catch { return error }
            return nil
        }
        for text in ["969580800000,967766400000", "2000-13-01", "1,2,3"] {
            let inner = try #require(thrown { () throws(TimeExtentError) in _ = try TimeExtent.parse(text) })
            #expect(refusal(("time", text)) == .time(parameter: "time", inner))
        }
        let envelope = try #require(thrown { () throws(FilterError) in _ = try StreamFilter.parseEnvelope("1,2,3") })
        #expect(refusal(("geometry", "1,2,3")) == .envelope(parameter: "geometry", envelope))
        for (name, text) in [("inSR", "web"), ("inSR", "99999"), ("outSR", "-1")] {
            let inner = try #require(thrown { () throws(ProjectionError) in _ = try SpatialReference.parse(text: text) })
            #expect(refusal((name, text)) == .projection(parameter: name, inner))
        }
    }

    /// The printed refusal reads as ArcGIS words it (README and clients quote it).
    @Test func refusalText() {
        #expect(FeatureQueryError.notDirection(parameter: "orderByFields", "UP", entry: "a UP").description
                == "'orderByFields' parameter is invalid: 'UP' is not ASC or DESC (in 'a UP')")
        #expect(FeatureQueryError.unknownStatisticType("median").description
                == "'outStatistics' parameter is invalid: statisticType 'median' is not one of count, sum, min, max, avg, stddev, var, percentile_cont, percentile_disc")
    }

    /// A parameter repeated with different values is refused; repeated identically it is accepted.
    @Test func repeatedParameters() throws {
        #expect(try parse([("where", "a=1"), ("WHERE", "a=1")]).whereClause == "a=1")
        #expect(throws: FeatureQueryError.givenTwice(parameter: "where", first: "a=1", second: "a=2")) { _ = try parse([("where", "a=1"), ("where", "a=2")]) }
        // ArcGIS: with returnIdsOnly and returnCountOnly both, the count takes precedence.
        let both = try parse([("returnCountOnly", "true"), ("returnIdsOnly", "true")])
        #expect(both.returnCountOnly && !both.returnIDsOnly)
        #expect(throws: FeatureQueryError.havingDisagrees(parameter: "havingClause", first: "COUNT(*) > 1", second: "COUNT(*) > 2")) {
            _ = try parse([("having", "COUNT(*) > 1"), ("havingClause", "COUNT(*) > 2"), ("outStatistics", #"[{"statisticType":"count","onStatisticField":"a"}]"#)])
        }
        #expect(throws: FeatureQueryError.inSRContradictsGeometry(inSR: 2056, geometry: 4326)) {
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
