import EntityStreamCore
import StreamSimulator
import EntityStreamTestSupport
import Testing
import EntityStreamFeatures

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

    /// Each malformed mapping throws an error whose message names the problem.
    @Test(arguments: [
        ("", "empty column mapping"),
        ("   ", "empty column mapping"),
        ("id=a,time=t,x=x", "missing key 'y'"),
        ("id=a,x=x", "missing keys 'time', 'y'"),
        ("id=a,time=t,x=x,y=y,z=h", "unknown key 'z'"),
        ("id=a,time=t,lon=x,y=y", "unknown key 'lon'"),
        ("id=a,time=t,x,y=y", "malformed pair 'x'"),
        ("id=a,time=t,x=,y=y", "malformed pair 'x='"),
        ("id=a,time=t,=x,y=y", "malformed pair '=x'"),
        ("id=a,,time=t,x=x,y=y", "malformed pair ''"),
        ("id=a,time=t,x=x,y=y,", "malformed pair ''"),
        ("id=a,time=t,x=x,y=y,id=b", "key 'id' is given twice"),
        ("id=a,time=t,x=lon,y=LON", "'x' and 'y' both name column 'lon'"),
        ("id=t,time=t,x=x,y=y", "'id' and 'time' both name column 't'"),
    ] as [(String, String)])
    func rejects(text: String, expected: String) {
        #expect {
            _ = try CSVColumnMapping(parsing: text)
        } throws: { error in
            guard let error = error as? CSVError else { return false }
            return error.line == nil && error.message.contains(expected)
        }
    }

    /// validate() rejects an empty column given through the memberwise initializer.
    @Test func validateRejectsEmptyColumn() {
        #expect(throws: CSVError.self) {
            try CSVColumnMapping(id: "a", time: " ", x: "x", y: "y").validate()
        }
    }

    /// An error's description carries the line number when there is one.
    @Test func errorDescription() {
        #expect(CSVError("bad", line: 7).description == "line 7: bad")
        #expect(CSVError("bad").description == "bad")
    }
}
