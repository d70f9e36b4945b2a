import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private func parse(_ json: String) throws -> StreamFilter {
    try StreamFilter.parse(json: JSONParser.parse(json))
}

@Suite("Stream filter parsing", .bounded)
struct StreamFilterTests {
    /// Every member of a `{"filter":…}` object is read; outFields as a list or an array, trimmed alike.
    @Test func readsEveryMember() throws {
        let filter = try parse(#"{"where":"speed > 0","geometry":"-112,40,-111,41","outFields":" speed , heading ,","outSR":3857,"spatialRel":"esriSpatialRelIntersects","geometryType":"esriGeometryEnvelope"}"#)
        #expect(filter == StreamFilter(whereClause: "speed > 0", geometry: Envelope(xmin: -112, ymin: 40, xmax: -111, ymax: 41),
                                       outFields: ["speed", "heading"], outSpatialReference: 3857))
        #expect(try parse(#"{"outFields":[" speed","heading "]}"#).outFields == ["speed", "heading"])
        #expect(try parse(#"{"outFields":"*"}"#).outFields == nil)
        #expect(StreamFilter.parseOutFields([" ", ""]) == nil)
    }

    /// inSR gives an envelope without a spatial reference its reference.
    @Test func inSRAppliesToTheEnvelope() throws {
        #expect(try parse(#"{"inSR":"3857","geometry":"0,0,10,10"}"#).geometry?.wkid == 3857)
        #expect(try parse(#"{"geometry":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":4326}},"inSR":4326}"#).geometry?.wkid == 4326)
    }

    /// What cannot be applied is refused with its name, never silently dropped.
    @Test(arguments: [
        (#"{"spatialRel":"esriSpatialRelWithin"}"#, "'spatialRel' \"esriSpatialRelWithin\" is not supported"),
        (#"{"geometryType":"esriGeometryPolygon"}"#, "'geometryType' \"esriGeometryPolygon\" is not supported"),
        (#"{"geometry":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":4326}},"inSR":3857}"#, "'inSR' wkid 3857 contradicts"),
        (#"{"outSR":"abc"}"#, "'outSR': 'abc' is not a spatial reference"),
        (#"{"outSR":99999}"#, "unknown spatial reference wkid 99999"),
        (#"{"geometry":"0,0,1,1,99999"}"#, "unknown spatial reference wkid 99999"),
        (#"{"outFields":[1]}"#, "must list field names, not 1"),
        (#"{"colour":"red"}"#, "unknown filter member 'colour'"),
    ] as [(String, String)])
    func refusesWhatItCannotApply(json: String, expected: String) {
        do {
            _ = try parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}
