import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamWhere
import EntityStreamModel

@Suite("Where NULL handling: SQL three-valued logic", .bounded)
struct WhereNullLogicTests {
    typealias F = WhereFixture

    /// Conditions that are true, false and unknown on `row` (speed is NULL there).
    static let condition: [SQLTruth: String] = [.true: "agency = 3", .false: "agency = 4", .unknown: "speed > 0"]
    static let row = F.plow(["speed": .null])
    static let all: [SQLTruth] = [.true, .false, .unknown]

    static func kleeneAnd(_ a: SQLTruth, _ b: SQLTruth) -> SQLTruth {
        if a == .false || b == .false { return .false }
        if a == .true && b == .true { return .true }
        return .unknown
    }

    static func kleeneOr(_ a: SQLTruth, _ b: SQLTruth) -> SQLTruth {
        if a == .true || b == .true { return .true }
        if a == .false && b == .false { return .false }
        return .unknown
    }

    /// The full Kleene AND table, written out (SQLTruth operator and clause text).
    @Test(arguments: [
        (SQLTruth.true, SQLTruth.true, SQLTruth.true), (.true, .false, .false), (.true, .unknown, .unknown),
        (.false, .true, .false), (.false, .false, .false), (.false, .unknown, .false),
        (.unknown, .true, .unknown), (.unknown, .false, .false), (.unknown, .unknown, .unknown),
    ])
    func andTable(a: SQLTruth, b: SQLTruth, expected: SQLTruth) throws {
        #expect((a && b) == expected)
        let text = "\(Self.condition[a]!) AND \(Self.condition[b]!)"
        #expect(try F.evaluate(text, Self.row) == expected)
        #expect(try F.evaluate("(\(text)) AND 1=1", Self.row) == expected)
    }

    /// The full Kleene OR table, written out (SQLTruth operator and clause text).
    @Test(arguments: [
        (SQLTruth.true, SQLTruth.true, SQLTruth.true), (.true, .false, .true), (.true, .unknown, .true),
        (.false, .true, .true), (.false, .false, .false), (.false, .unknown, .unknown),
        (.unknown, .true, .true), (.unknown, .false, .unknown), (.unknown, .unknown, .unknown),
    ])
    func orTable(a: SQLTruth, b: SQLTruth, expected: SQLTruth) throws {
        #expect((a || b) == expected)
        let text = "\(Self.condition[a]!) OR \(Self.condition[b]!)"
        #expect(try F.evaluate(text, Self.row) == expected)
        #expect(try F.evaluate("(\(text)) OR 1=0", Self.row) == expected)
    }

    /// NOT swaps true/false and keeps unknown.
    @Test(arguments: [(SQLTruth.true, SQLTruth.false), (.false, .true), (.unknown, .unknown)])
    func notTable(a: SQLTruth, expected: SQLTruth) throws {
        #expect(!a == expected)
        #expect(try F.evaluate("NOT \(Self.condition[a]!)", Self.row) == expected)
        #expect(try F.evaluate("NOT (\(Self.condition[a]!))", Self.row) == expected)
    }

    /// Three-way chains agree with the Kleene tables for every combination (27 each).
    @Test func threeWayChains() throws {
        for a in Self.all {
            for b in Self.all {
                for c in Self.all {
                    let (x, y, z) = (Self.condition[a]!, Self.condition[b]!, Self.condition[c]!)
                    #expect(try F.evaluate("\(x) AND \(y) AND \(z)", Self.row) == Self.kleeneAnd(Self.kleeneAnd(a, b), c))
                    #expect(try F.evaluate("\(x) OR \(y) OR \(z)", Self.row) == Self.kleeneOr(Self.kleeneOr(a, b), c))
                    #expect(try F.evaluate("\(x) OR \(y) AND \(z)", Self.row) == Self.kleeneOr(a, Self.kleeneAnd(b, c)))
                    #expect(try F.evaluate("NOT \(x) AND NOT (\(y) OR \(z))", Self.row)
                            == Self.kleeneAnd(!a, !Self.kleeneOr(b, c)))
                }
            }
        }
    }

    /// Literal NULL in comparisons is unknown, even NULL = NULL.
    @Test(arguments: ["NULL = NULL", "speed = NULL", "NULL <> 1", "agency > NULL", "NULL = 'a'", "NOT NULL = 1"])
    func nullComparisons(text: String) throws {
        #expect(try F.evaluate(text) == .unknown)
    }

    /// A NULL field in any comparison or arithmetic gives unknown.
    @Test(arguments: ["speed > 0", "speed <= 0", "speed = speed", "speed + 1 > 0", "-speed < 0",
                      "ABS(speed) >= 0", "0 * speed = 0", "speed <> 1"])
    func nullFieldComparisons(text: String) throws {
        #expect(try F.evaluate(text, Self.row) == .unknown)
    }

    /// IN with NULL in the list: true on a match, otherwise unknown; NULL operand is unknown.
    @Test(arguments: [
        ("agency IN (1, NULL)", Int64(2), SQLTruth.unknown), ("agency IN (1, NULL)", 1, .true),
        ("agency IN (NULL)", 1, .unknown), ("agency IN (NULL, 1)", 1, .true),
        ("agency NOT IN (1, NULL)", 2, .unknown), ("agency NOT IN (1, NULL)", 1, .false),
        ("agency NOT IN (NULL)", 5, .unknown), ("agency NOT IN (1, 2)", 5, .true),
        ("agency IN (speed, 4)", 4, .true), ("agency IN (speed, 4)", 3, .unknown),
        ("agency NOT IN (speed, 4)", 3, .unknown),
    ])
    func inWithNulls(text: String, agency: Int64, expected: SQLTruth) throws {
        #expect(try F.evaluate(text, F.plow(["agency": .int(agency), "speed": .null])) == expected)
    }

    /// NOT IN with a NULL in the list is never true, whatever the operand.
    @Test func notInWithNullNeverTrue() throws {
        let clause = try WhereClause("agency NOT IN (1, 2, NULL)", schema: F.schema)
        for agency in [Int64(-5), 0, 1, 2, 3, 99] {
            #expect(clause.evaluate(F.plow(["agency": .int(agency)])) != .true)
        }
        #expect(clause.evaluate(F.plow(["agency": .null])) == .unknown)
    }

    /// IN / NOT IN on a NULL operand is unknown.
    @Test func inOnNullOperand() throws {
        #expect(try F.evaluate("speed IN (1, 2)", Self.row) == .unknown)
        #expect(try F.evaluate("speed NOT IN (1, 2)", Self.row) == .unknown)
        #expect(try F.evaluate("NULL IN (1, 2)") == .unknown)
        #expect(try F.evaluate("speed * 2 IN (1, 2)", Self.row) == .unknown)
    }

    /// BETWEEN is (x >= a AND x <= b) under three-valued logic, with NULL bounds or operand.
    @Test(arguments: [
        ("agency BETWEEN NULL AND 5", Int64(3), SQLTruth.unknown), ("agency BETWEEN NULL AND 5", 7, .false),
        ("agency BETWEEN 1 AND NULL", 0, .false), ("agency BETWEEN 1 AND NULL", 3, .unknown),
        ("agency NOT BETWEEN NULL AND 5", 7, .true), ("agency NOT BETWEEN NULL AND 5", 3, .unknown),
        ("agency NOT BETWEEN 1 AND NULL", 0, .true), ("agency BETWEEN NULL AND NULL", 3, .unknown),
        ("speed BETWEEN 1 AND 5", 3, .unknown), ("agency BETWEEN speed AND 5", 3, .unknown),
        ("agency BETWEEN speed AND 2", 3, .false), ("NULL BETWEEN 1 AND 2", 3, .unknown),
    ])
    func betweenWithNulls(text: String, agency: Int64, expected: SQLTruth) throws {
        #expect(try F.evaluate(text, F.plow(["agency": .int(agency), "speed": .null])) == expected)
    }

    /// LIKE on NULL (operand or pattern) is unknown, as is NOT LIKE.
    @Test(arguments: ["vehiclename LIKE '%'", "vehiclename NOT LIKE 'a%'", "vehiclename LIKE ''",
                      "'abc' LIKE NULL", "vehiclename NOT LIKE NULL", "UPPER(vehiclename) LIKE 'A%'", "NULL LIKE 'a'"])
    func likeOnNull(text: String) throws {
        #expect(try F.evaluate(text, F.plow(["vehiclename": .null])) == .unknown)
    }

    /// UPPER/LOWER/CHAR_LENGTH/ABS of NULL are NULL.
    @Test(arguments: [
        ("UPPER(vehiclename) = 'A'", SQLTruth.unknown), ("UPPER(vehiclename) IS NULL", .true),
        ("LOWER(vehiclename) IS NULL", .true), ("CHAR_LENGTH(vehiclename) IS NULL", .true),
        ("ABS(speed) IS NULL", .true), ("UPPER(NULL) IS NULL", .true), ("UPPER(vehiclename) IS NOT NULL", .false),
    ])
    func functionsOnNull(text: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(text, F.plow(["vehiclename": .null, "speed": .null])) == expected)
    }

    /// IS [NOT] NULL is never unknown.
    @Test(arguments: ["speed IS NULL", "speed IS NOT NULL", "speed + 1 IS NULL", "speed / 0 IS NULL",
                      "vehiclename IS NULL", "NULL IS NOT NULL", "payload IS NULL"])
    func isNullNeverUnknown(text: String) throws {
        let clause = try WhereClause(text, schema: F.schema)
        for row in [Self.row, F.row(F.plow), F.row([:])] {
            #expect(clause.evaluate(row) != .unknown)
        }
    }

    /// IS NULL distinguishes NULL from values on the same field.
    @Test func isNullValues() throws {
        #expect(try F.evaluate("speed IS NULL", Self.row) == .true)
        #expect(try F.evaluate("speed IS NOT NULL", Self.row) == .false)
        #expect(try F.evaluate("speed IS NULL") == .false)
        #expect(try F.evaluate("speed IS NOT NULL") == .true)
        #expect(try F.evaluate("(speed + 1) IS NULL", Self.row) == .true)
    }

    /// A WHERE clause excludes rows whose condition is unknown.
    @Test func unknownExcludes() throws {
        let clause = try WhereClause("speed > 0 OR agency = 4", schema: F.schema)
        #expect(clause.evaluate(Self.row) == .unknown)
        #expect(!clause.matches(Self.row))
        let negated = try WhereClause("NOT (speed > 0 OR agency = 4)", schema: F.schema)
        #expect(!negated.matches(Self.row))
    }
}
