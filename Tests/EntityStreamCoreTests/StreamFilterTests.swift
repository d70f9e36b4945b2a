import EntityStreamCore
import EntityStreamProjection
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

    /// What cannot be applied is refused by what is wrong, never silently dropped.
    @Test func refusesWhatItCannotApply() throws {
        let within = #expect(throws: FilterError.unsupportedSpatialRelationship(.string("esriSpatialRelWithin"))) {
            try parse(#"{"spatialRel":"esriSpatialRelWithin"}"#)
        }
        #expect(within?.description == #"filter 'spatialRel' "esriSpatialRelWithin" is not supported (only esriSpatialRelIntersects)"#)
        #expect(throws: FilterError.unsupportedGeometryType(.string("esriGeometryPolygon"))) { try parse(#"{"geometryType":"esriGeometryPolygon"}"#) }
        #expect(throws: FilterError.inSpatialReferenceContradicts(inSR: 3857, geometry: 4326)) {
            try parse(#"{"geometry":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":4326}},"inSR":3857}"#)
        }
        #expect {
            try parse(#"{"outSR":"abc"}"#)
        } throws: { error in
            guard case FilterError.outSpatialReference(.malformed("abc", _)) = error else { return false }
            return true
        }
        #expect {
            try parse(#"{"outSR":99999}"#)
        } throws: { error in
            guard case FilterError.outSpatialReference(.unknownSpatialReference(let name, _)) = error else { return false }
            return name.contains("99999")
        }
        #expect {
            try parse(#"{"geometry":"0,0,1,1,99999"}"#)
        } throws: { error in
            guard case FilterError.envelopeSpatialReference("0,0,1,1,99999", .unknownSpatialReference) = error else { return false }
            return true
        }
        #expect(throws: FilterError.outFieldsElement(.int(1))) { try parse(#"{"outFields":[1]}"#) }
        #expect(throws: FilterError.unknownMember("colour")) { try parse(#"{"colour":"red"}"#) }
        #expect(throws: FilterError.envelopeNotANumber("0,y,1,1", coordinate: "ymin", part: "y")) { try parse(#"{"geometry":"0,y,1,1"}"#) }
        #expect(throws: FilterError.envelopeWithoutArea("1,0,1,1")) { try parse(#"{"geometry":"1,0,1,1"}"#) }
        #expect(throws: FilterError.envelopeMember("ymax")) { try parse(#"{"geometry":{"xmin":0,"ymin":0,"xmax":1}}"#) }
    }
}
