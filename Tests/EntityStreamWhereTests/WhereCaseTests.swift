import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

@Suite("Where case-insensitivity and quoted identifiers", .bounded)
struct WhereCaseTests {
    typealias F = WhereFixture

    /// Keywords and function names are case-insensitive.
    @Test(arguments: [
        "speed > 1 and agency in (3)", "SPEED > 1 AND AGENCY IN (3)", "Speed > 1 aNd Agency iN (3)",
        "not agency = 4", "NoT agency = 4", "speed between 1 and 30", "speed BeTwEeN 1 AnD 30",
        "vehiclename like 'TRUCK%'", "vehiclename LiKe 'TRUCK%' eScApE '!'", "payload is null", "payload Is NuLl",
        "speed is not null", "agency not in (1, 2)", "upper(vehicletype) = 'PLOW'", "Upper(vehicletype) = 'PLOW'",
        "lower(VEHICLENAME) = 'truck 12'", "char_length(vehicletype) = 4", "Character_Length(vehicletype) = 4",
        "abs(point_x) = 77", "lastupdate > DATE '2024-01-01'", "lastupdate > Date '2024-01-01'",
        "lastupdate = TimeStamp '2024-03-01 12:00:00'", "speed = 25.5 or NULL = 1", "speed > nUlL or 1 = 1",
        "speed = 25.5 Or agency = 9",
    ])
    func keywordsAreCaseInsensitive(text: String) throws {
        #expect(try F.evaluate(text) == .true, "\(text)")
    }

    /// Field names are case-insensitive, quoted or not.
    @Test(arguments: ["speed = 25.5", "SPEED = 25.5", "Speed = 25.5", "sPeEd = 25.5", "\"speed\" = 25.5",
                      "\"SPEED\" = 25.5", "\"Speed\" = 25.5", "VehicleName = 'TRUCK 12'", "POINT_X < 0"])
    func fieldNamesAreCaseInsensitive(text: String) throws {
        #expect(try F.evaluate(text) == .true, "\(text)")
    }

    /// String literal contents stay case-sensitive even though keywords are not.
    @Test func literalsStayCaseSensitive() throws {
        #expect(try F.evaluate("vehicletype = 'plow'") == .false)
        #expect(try F.evaluate("vehicletype = 'Plow'") == .true)
    }

    /// Quoted identifiers may contain spaces, reserved words and doubled quotes.
    @Test func quotedIdentifiers() throws {
        #expect(try F.evaluate("\"speed limit\" = 35") == .true)
        #expect(try F.evaluate("\"SPEED LIMIT\" > speed") == .true)
        #expect(try F.evaluate("(\"speed limit\"-speed)=9.5") == .true)
        let schema = Schema(fields: [Field(name: "and", type: .integer), Field(name: "say \"hi\"", type: .string),
                                     Field(name: "größe", type: .double), Field(name: "Straße Nr", type: .integer)])
        let row = WhereArrayRow(values: [.int(1), .string("hi"), .double(1.5), .int(7)])
        #expect(try WhereClause("\"and\" = 1", schema: schema).matches(row))
        #expect(try WhereClause("\"say \"\"hi\"\"\" = 'hi'", schema: schema).matches(row))
        #expect(try WhereClause("größe > 1", schema: schema).matches(row))
        #expect(try WhereClause("\"größe\" > 1 AND \"straße nr\" = 7", schema: schema).matches(row))
    }

    /// Unquoted names stop at spaces, so a name with a space must be quoted.
    @Test func unquotedNameWithSpaceIsAnError() throws {
        let error = try #require(F.error("speed limit > 5"))
        #expect(error.message == "unexpected 'limit' after end of condition")
        #expect(error.position == 7)
    }
}
