import EntityStreamCore
import StreamSimulator
import EntityStreamTestSupport
import Testing
import EntityStreamFeatures

/// The keys a recording's column mapping takes, in the order errors list them.
private let keys = ["id", "time", "x", "y"]

@Suite("CSVColumnMapping", .bounded)
struct CSVColumnMappingTests {
    /// The four keys parse in any order, with spaces and any key case.
    @Test(arguments: [
        "id=vehicle_id,time=timestamp,x=longitude,y=latitude",
        "y=latitude,x=longitude,time=timestamp,id=vehicle_id",
        " ID = vehicle_id , Time=timestamp,X=longitude ,y= latitude ",
    ])
    func parses(text: String) throws {
        let mapping = try CSVColumnMapping(parsing: text)
        #expect(mapping == CSVColumnMapping(id: "vehicle_id", time: "timestamp", x: "longitude", y: "latitude"))
        #expect(try CSVColumnMapping(parsing: mapping.text) == mapping)
    }

    /// A column name may contain '=' (only the first '=' splits a pair).
    @Test func columnNameWithEquals() throws {
        let mapping = try CSVColumnMapping(parsing: "id=a=b,time=t,x=x,y=y")
        #expect(mapping.id == "a=b")
    }

    /// Each malformed mapping throws the error naming the problem, by case (no line).
    @Test(arguments: [
        ("", .emptyMapping(keys: keys)),
        ("   ", .emptyMapping(keys: keys)),
        ("id=a,time=t,x=x", .missingKeys(["y"])),
        ("id=a,x=x", .missingKeys(["time", "y"])),
        ("id=a,time=t,x=x,y=y,z=h", .unknownKey("z", keys: keys)),
        ("id=a,time=t,lon=x,y=y", .unknownKey("lon", keys: keys)),
        ("id=a,time=t,x,y=y", .malformedPair("x")),
        ("id=a,time=t,x=,y=y", .malformedPair("x=")),
        ("id=a,time=t,=x,y=y", .malformedPair("=x")),
        ("id=a,,time=t,x=x,y=y", .malformedPair("")),
        ("id=a,time=t,x=x,y=y,", .malformedPair("")),
        ("id=a,time=t,x=x,y=y,id=b", .repeatedKey("id")),
        ("id=a,time=t,x=lon,y=LON", .sameColumn("x", "y", column: "lon")),
        ("id=t,time=t,x=x,y=y", .sameColumn("id", "time", column: "t")),
    ] as [(String, CSVError.Reason)])
    func rejects(text: String, reason: CSVError.Reason) {
        #expect(throws: CSVError(reason)) { _ = try CSVColumnMapping(parsing: text) }
    }

    /// The printed errors read as the user's manual quotes them.
    @Test func rejectionText() {
        #expect(CSVError(.missingKeys(["time", "y"])).description == "column mapping is missing keys 'time', 'y'; all of id, time, x and y are required")
        #expect(CSVError(.unknownKey("z", keys: keys)).description == "unknown key 'z' in column mapping; the keys are id, time, x and y")
    }

    /// validate() rejects an empty column given through the memberwise initializer.
    @Test func validateRejectsEmptyColumn() {
        #expect(throws: CSVError(.noColumnForKey("time"))) {
            try CSVColumnMapping(id: "a", time: " ", x: "x", y: "y").validate()
        }
    }

    /// An error's description carries the line number when there is one.
    @Test func errorDescription() {
        #expect(CSVError(.fieldCount(expected: 3, found: 2), line: 7).description == "line 7: expected 3 fields as in the header, found 2")
        #expect(CSVError(.noPositions).description == "the CSV holds a header but no positions")
    }
}
