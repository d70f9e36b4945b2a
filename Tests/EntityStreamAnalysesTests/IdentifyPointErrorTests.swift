import EntityStreamTestSupport
import Testing
import EntityStreamModel
import EntityStreamProjection
import EntityStreamAnalyses

/// A point identify cannot read is refused by case, naming its line and member, with the message users read.
@Suite("Identify point errors by case", .bounded)
struct IdentifyPointErrorTests {
    @Test func casesAndMessages() {
        func line(_ text: String, _ number: Int) throws(IdentifyPointError) -> IdentifyPoint {
            try IdentifyPoint(jsonLine: Array(text.utf8), line: number)
        }
        let missing = #expect(throws: IdentifyPointError.onLine(4, .missing("y"))) { try line(#"{"x":1}"#, 4) }
        #expect(missing?.description == #"line 4: missing "y""#)
        let array = #expect(throws: IdentifyPointError.notAnObject(line: 2)) { try line("[1,2]", 2) }
        #expect(array?.description == #"line 2: expected an object {"x":…,"y":…,"sr":…}"#)
        let both = #expect(throws: IdentifyPointError.onLine(1, .inSRAndSR)) { try line(#"{"x":1,"y":2,"sr":4326,"inSR":4326}"#, 1) }
        #expect(both?.description == #"line 1: give "inSR" or "sr", not both"#)
        let unknown = #expect(throws: IdentifyPointError.onLine(3, .unknownMember("z"))) { try line(#"{"x":1,"y":2,"z":3}"#, 3) }
        #expect(unknown?.description == "line 3: unknown member 'z' (expected x, y, inSR, id)")
        #expect(throws: IdentifyPointError.onLine(5, .notAFiniteNumber("x", .string("a")))) { try line(#"{"x":"a","y":2}"#, 5) }
        #expect(throws: IdentifyPointError.onLine(6, .invalidID(.bool(true)))) { try line(#"{"x":1,"y":2,"id":true}"#, 6) }
        let notJSON = #expect(throws: IdentifyPointError.self) { try line("not json", 7) }
        guard case .notJSON(7, let parser)? = notJSON else { Issue.record("not a JSON error: \(String(describing: notJSON))"); return }
        #expect(parser.offset == 0)
        #expect(notJSON?.description == "line 7: not JSON: invalid JSON at byte 0: \(parser.message)")
        let unknownWKID = #expect(throws: IdentifyPointError.self) { try line(#"{"x":1,"y":2,"sr":999999}"#, 8) }
        guard case .onLine(8, .invalidSpatialReference(let member, let projection))? = unknownWKID, member == "sr",
              case .unknownSpatialReference(let name, _) = projection else {
            Issue.record("not PROJ's unknown reference: \(String(describing: unknownWKID))"); return
        }
        #expect(unknownWKID?.description.hasPrefix(#"line 8: "sr": unknown spatial reference \#(name): "#) == true)
        let text = #expect(throws: IdentifyPointError.self) { try line(#"{"x":1,"y":2,"inSR":true}"#, 9) }
        guard case .onLine(9, .invalidSpatialReference(let textMember, let malformed))? = text, textMember == "inSR",
              case .malformed = malformed else {
            Issue.record("not a malformed reference: \(String(describing: text))"); return
        }
    }
}
