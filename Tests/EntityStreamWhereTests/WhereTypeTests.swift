import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

@Suite("Where types: static checks from the schema, dynamic rules at evaluation", .bounded)
struct WhereTypeTests {
    typealias F = WhereFixture

    /// Evaluates `text` on the plow with the untyped `payload` field set to `payload`.
    static func payload(_ text: String, _ payload: AttributeValue) throws -> SQLTruth {
        try F.evaluate(text, F.plow(["payload": payload]))
    }

    /// Fields of `.other` type pass static checks; incompatible runtime types give unknown.
    @Test(arguments: [
        ("payload = 1", AttributeValue.string("abc"), SQLTruth.unknown),
        ("payload = 'abc'", .string("abc"), .true),
        ("payload > 3", .int(5), .true),
        ("payload > 3", .double(2.5), .false),
        ("payload LIKE 'a%'", .int(5), .unknown),
        ("payload LIKE 'a%'", .string("abc"), .true),
        ("UPPER(payload) = 'ABC'", .string("abc"), .true),
        ("UPPER(payload) = 'X'", .int(5), .unknown),
        ("UPPER(payload) IS NULL", .int(5), .true),
        ("payload + 1 = 6", .int(5), .true),
        ("payload + 1 IS NULL", .string("x"), .true),
        ("-payload = -5", .int(5), .true),
        ("ABS(payload) IS NULL", .string("x"), .true),
        ("payload IN (1, 'abc')", .string("abc"), .true),
        ("payload IN (1, 'abc')", .string("x"), .unknown),
        ("payload IN (1, 'abc')", .int(1), .true),
        ("payload BETWEEN 1 AND 10", .string("5"), .unknown),
        ("payload = vehiclename", .int(1), .unknown),
        ("payload = lastupdate", .date(milliseconds: WhereFixture.march1Noon), .true),
        ("payload > date '2024-01-01'", .date(milliseconds: WhereFixture.march1Noon), .true),
        ("payload > date '2024-01-01'", .string("2025-01-01"), .unknown),
        ("CHAR_LENGTH(payload) = 3", .string("a日c"), .true),
        ("payload <> 1", .null, .unknown),
    ])
    func dynamicFields(text: String, value: AttributeValue, expected: SQLTruth) throws {
        #expect(try Self.payload(text, value) == expected)
    }

    /// Booleans compare with each other and with numbers as 1 (true) / 0 (false).
    @Test(arguments: [
        ("payload = 1", AttributeValue.bool(true), SQLTruth.true), ("payload = 0", .bool(true), .false),
        ("payload = 0", .bool(false), .true), ("payload <> 1", .bool(false), .true),
        ("payload > 0", .bool(true), .true), ("payload = 'true'", .bool(true), .unknown),
        ("payload IN (1)", .bool(true), .true), ("payload + 1 = 2", .bool(true), .true),
        ("payload = payload", .bool(true), .true), ("payload = 1.0", .bool(true), .true),
    ])
    func booleans(text: String, value: AttributeValue, expected: SQLTruth) throws {
        #expect(try Self.payload(text, value) == expected)
    }

    /// A runtime value contradicting the declared type (string in a double field) gives unknown, not a crash.
    @Test func runtimeTypeMismatchOnTypedField() throws {
        let row = F.plow(["speed": .string("fast"), "vehiclename": .int(7)])
        #expect(try F.evaluate("speed > 1", row) == .unknown)
        #expect(try F.evaluate("speed + 1 > 1", row) == .unknown)
        #expect(try F.evaluate("vehiclename LIKE '%'", row) == .unknown)
        #expect(try F.evaluate("UPPER(vehiclename) = 'A'", row) == .unknown)
        #expect(try F.evaluate("vehiclename IN ('a', 'b')", row) == .unknown)
        #expect(try F.evaluate("agency IN (3) AND speed IS NOT NULL", row) == .true)
    }

    /// Integer/double comparisons are exact, even beyond 2^53.
    @Test(arguments: [
        ("payload = 9007199254740993", AttributeValue.int(9_007_199_254_740_993), SQLTruth.true),
        ("payload = 9007199254740992.0", .int(9_007_199_254_740_993), .false),
        ("payload > 9007199254740992.0", .int(9_007_199_254_740_993), .true),
        ("payload < 9223372036854775807.0", .int(Int64.max), .true),
        ("payload > -9223372036854775808.0", .int(Int64.min), .false),
        ("payload >= -9223372036854775808.0", .int(Int64.min), .true),
        ("payload < 2.5", .int(2), .true), ("payload > 2.5", .int(3), .true), ("payload = 2.5", .int(2), .false),
        ("payload > -2.5", .int(-2), .true), ("payload < -2.5", .int(-3), .true), ("payload = -2.0", .int(-2), .true),
        ("payload = 1", .double(.nan), .unknown), ("payload > 1e300", .double(.infinity), .true),
    ])
    func exactNumericComparisons(text: String, value: AttributeValue, expected: SQLTruth) throws {
        #expect(try Self.payload(text, value) == expected)
    }

    /// Comparisons that are fine statically: NULL with anything, numbers with dates, GUIDs with strings.
    @Test func staticallyCompatible() throws {
        for text in ["speed = NULL", "NULL = vehiclename", "lastupdate > 5", "agency < lastupdate",
                     "payload = 'x' AND payload = 1", "speed IN (NULL, 1)", "vehiclename BETWEEN NULL AND 'z'",
                     "UPPER(NULL) = 'A'", "NULL + 1 = 2", "NULL LIKE 'a'", "ABS(NULL) = 1"] {
            #expect(F.error(text) == nil, "\(text)")
        }
        let schema = Schema(fields: [Field(name: "gid", type: .globalID), Field(name: "g", type: .guid),
                                     Field(name: "s", type: .single), Field(name: "n", type: .smallInteger),
                                     Field(name: "b", type: .bigInteger)])
        let clause = try WhereClause("gid = '{ABC}' AND g LIKE '{%' AND s > 1 AND n < 2 AND b = 3", schema: schema)
        #expect(clause.matches(WhereArrayRow(values: [.string("{ABC}"), .string("{X}"), .double(1.5), .int(1), .int(3)])))
    }
}
