import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere

@Suite("Where grammar: every construct parses and evaluates", .bounded)
struct WhereGrammarTests {
    typealias F = WhereFixture

    /// Comparison operators on numbers (double field, integer field, mixed int/double).
    @Test(arguments: [
        ("speed > 25", SQLTruth.true), ("speed >= 25.5", .true), ("speed < 25.5", .false),
        ("speed <= 25.5", .true), ("speed = 25.5", .true), ("speed <> 25.5", .false),
        ("speed != 25", .true), ("agency = 3", .true), ("agency = 3.0", .true),
        ("agency < 3.5", .true), ("agency > 2.999", .true), ("3 = agency", .true),
        ("2 < agency", .true), ("agency >= 4", .false), ("heading = 90", .true),
        ("point_x < -76.5", .true), ("\"speed limit\" > speed", .true), ("objectid = 1", .true),
    ])
    func numericComparisons(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// String comparisons are binary (UTF-8 / Unicode scalar order), case-sensitive, unnormalized.
    @Test(arguments: [
        ("vehiclename = 'TRUCK 12'", SQLTruth.true), ("vehiclename = 'truck 12'", .false),
        ("vehiclename <> 'TRUCK 1'", .true), ("vehiclename < 'a'", .true),
        ("vehiclename > 'TRUCK 1'", .true), ("vehiclename < 'TRUCK 2'", .true),
        ("'Z' < 'a'", .true), ("'é' > 'z'", .true), ("'e\u{301}' = 'é'", .false),
        ("vehicletype = vehicletype", .true), ("'' < 'a'", .true), ("'' = ''", .true),
    ])
    func stringComparisons(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// A doubled single quote inside a string literal is one quote.
    @Test func escapedQuoteInString() throws {
        let row = F.plow(["vehiclename": .string("O'Brien")])
        #expect(try F.evaluate("vehiclename = 'O''Brien'", row) == .true)
        #expect(try F.evaluate("vehiclename = 'O''''Brien'", row) == .false)
        #expect(try F.evaluate("vehiclename LIKE '%''%'", row) == .true)
        #expect(try F.evaluate("CHAR_LENGTH('''') = 1") == .true)
    }

    /// IN and NOT IN with numbers and strings.
    @Test(arguments: [
        ("agency IN (1, 2, 3)", SQLTruth.true), ("agency IN (1, 2)", .false),
        ("agency NOT IN (1, 2)", .true), ("agency NOT IN (3)", .false),
        ("agency IN (3.0)", .true), ("vehiclename IN ('TRUCK 12', 'PLOW 7')", .true),
        ("vehicletype NOT IN ('Plow', 'Salter')", .false), ("speed IN (25.5)", .true),
        ("agency IN (1 + 2)", .true), ("agency IN (speed, 3)", .true), ("agency IN (speed - 22.5)", .true),
        ("agency IN (-3, 3)", .true), ("agency in (1,2,3,4,5,6,7,8,9,10,11,12)", .true),
    ])
    func inLists(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// BETWEEN is inclusive; NOT BETWEEN negates it; bounds may be expressions.
    @Test(arguments: [
        ("speed BETWEEN 20 AND 30", SQLTruth.true), ("speed NOT BETWEEN 20 AND 30", .false),
        ("agency BETWEEN 3 AND 3", .true), ("agency BETWEEN 4 AND 2", .false),
        ("speed BETWEEN 25.5 AND 26", .true), ("speed BETWEEN 0 AND 25.4", .false),
        ("vehiclename BETWEEN 'T' AND 'U'", .true), ("speed BETWEEN agency AND heading", .true),
        ("speed BETWEEN -1 AND +30 AND agency = 3", .true), ("speed BETWEEN 1 AND 2 OR agency = 3", .true),
        ("lastupdate BETWEEN date '2024-01-01' AND date '2024-12-31'", .true),
    ])
    func between(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// LIKE / NOT LIKE in context (pattern details are in WhereLikeTests).
    @Test(arguments: [
        ("vehiclename LIKE 'TRUCK%'", SQLTruth.true), ("vehiclename NOT LIKE 'TRUCK%'", .false),
        ("vehiclename LIKE 'truck%'", .false), ("vehicletype LIKE 'P_o_'", .true),
        ("UPPER(vehicletype) LIKE 'PLOW'", .true),
    ])
    func like(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// IS NULL / IS NOT NULL.
    @Test(arguments: [
        ("speed IS NULL", SQLTruth.false), ("speed IS NOT NULL", .true),
        ("payload IS NULL", .true), ("payload IS NOT NULL", .false),
        ("vehiclename is null or vehiclename is not null", .true), ("NULL IS NULL", .true),
    ])
    func isNull(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// Arithmetic: + - * /, unary minus, exact division, integer overflow to double, exponent literals.
    @Test(arguments: [
        ("speed * 2 = 51", SQLTruth.true), ("agency + 1 = 4", .true), ("agency - 5 = -2", .true),
        ("agency / 2 = 1.5", .true), ("6 / 3 = 2", .true), ("7 / 2 = 3.5", .true),
        ("agency * 1.5 = 4.5", .true), ("-speed < 0", .true), ("-speed = -25.5", .true),
        ("1.5e1 = 15", .true), ("15E-1 = 1.5", .true), ("2.55E+1 = speed", .true), ("2.5E+1 = speed", .false), (".5 = 0.5", .true),
        ("1. = 1", .true), ("heading - 90 = 0", .true), ("speed / 2 / 2 > 6", .true),
        ("9223372036854775807 + 1 > 9223372036854775807", .true),
        ("-9223372036854775807 - 2 < 0", .true), ("9223372036854775808 > 0", .true),
        ("3000000000 * 4000000000 = 12000000000000000000", .true),
        ("+agency = 3", .true), ("agency - -1 = 4", .true),
    ])
    func arithmetic(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// Division by zero yields NULL (so comparisons with it are unknown), for ints and doubles.
    @Test(arguments: [
        ("speed / 0 IS NULL", SQLTruth.true), ("agency / 0 IS NULL", .true), ("agency / 0 = 1", .unknown),
        ("1 / 0 IS NULL", .true), ("speed / (agency - 3) > 0", .unknown), ("0.0 / 0 IS NULL", .true),
        ("NOT speed / 0 > 1", .unknown),
    ])
    func divisionByZero(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// UPPER, LOWER, CHAR_LENGTH / CHARACTER_LENGTH (Unicode scalars), ABS.
    @Test(arguments: [
        ("UPPER(vehicletype) = 'PLOW'", SQLTruth.true), ("LOWER(vehiclename) = 'truck 12'", .true),
        ("upper(lower(vehiclename)) = vehiclename", .true), ("CHAR_LENGTH(vehiclename) = 8", .true),
        ("CHARACTER_LENGTH(vehicletype) = 4", .true), ("CHAR_LENGTH('日本語') = 3", .true),
        ("CHAR_LENGTH('') = 0", .true), ("ABS(point_x) = 77", .true), ("ABS(-3) = 3", .true),
        ("ABS(speed - 30) = 4.5", .true), ("UPPER('straße') = 'STRASSE'", .true),
        ("LOWER('ÉCOLE') = 'école'", .true), ("ABS(-9223372036854775807 - 1) > 0", .true),
    ])
    func functions(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// AND, OR, NOT and parentheses combine conditions.
    @Test(arguments: [
        ("agency = 3 AND speed > 20", SQLTruth.true), ("agency = 3 AND speed > 30", .false),
        ("agency = 4 OR speed > 20", .true), ("agency = 4 OR speed > 30", .false),
        ("NOT agency = 4", .true), ("NOT (agency = 3 AND speed > 20)", .false),
        ("(agency = 4 OR agency = 3) AND (speed > 20)", .true), ("((((agency = 3))))", .true),
        ("agency = 3 and speed > 20 and heading = 90 and vehicletype = 'Plow'", .true),
    ])
    func connectives(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// Empty and whitespace-only clauses, and 1=1, mean "every row".
    @Test(arguments: ["", "   ", "\n\t ", "1=1", "1 = 1", " 1=1 ", "2 > 1", "NOT 1 = 0", "1=1 OR speed > 0", "(1=1)"])
    func tautologies(text: String) throws {
        let clause = try WhereClause(text, schema: F.schema)
        #expect(clause.isTautology)
        #expect(clause.matches(F.row([:])))
        #expect(clause.matches(F.row(F.plow)))
    }

    /// Clauses that depend on rows (or are constant false/unknown) are not tautologies.
    @Test(arguments: ["1=0", "speed > 0", "speed IS NULL OR speed IS NOT NULL", "NULL = NULL", "1=1 AND speed > 0"])
    func nonTautologies(text: String) throws {
        #expect(try WhereClause(text, schema: F.schema).isTautology == false)
    }

    /// Constant-false or constant-unknown clauses are contradictions.
    @Test func contradictions() throws {
        #expect(try WhereClause("1=0", schema: F.schema).isContradiction)
        #expect(try WhereClause("speed = NULL", schema: F.schema).isContradiction)
        #expect(try WhereClause("speed > 0 AND 1=0", schema: F.schema).isContradiction)
        #expect(try WhereClause("speed > 0", schema: F.schema).isContradiction == false)
    }

    /// referencedFieldIndices lists every mentioned field once, sorted, even in folded branches.
    @Test func referencedFields() throws {
        #expect(try WhereClause("speed > 0 AND agency IN (3,4) AND vehiclename LIKE 'TRUCK%'", schema: F.schema)
            .referencedFieldIndices == [0, 2, 3])
        #expect(try WhereClause("SPEED > 0 OR speed < 0 OR \"speed limit\" = 1", schema: F.schema)
            .referencedFieldIndices == [3, 8])
        #expect(try WhereClause("1=1 OR lastupdate > 0", schema: F.schema).referencedFieldIndices == [7])
        #expect(try WhereClause("", schema: F.schema).referencedFieldIndices == [])
        #expect(try WhereClause("UPPER(vehicletype) = 'X' AND ABS(point_y) BETWEEN point_x AND heading",
                                schema: F.schema).referencedFieldIndices == [1, 4, 5, 6])
    }

    /// The text is kept verbatim and equal clauses compare equal.
    @Test func textAndEquality() throws {
        let a = try WhereClause("speed > 0", schema: F.schema)
        let b = try WhereClause("speed > 0", schema: F.schema)
        let c = try WhereClause("speed > 1", schema: F.schema)
        #expect(a.text == "speed > 0")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }

    /// matches() is evaluate() == .true.
    @Test func matchesIsEvaluateTrue() throws {
        let clause = try WhereClause("speed > 10", schema: F.schema)
        #expect(clause.matches(F.row(F.plow)))
        #expect(!clause.matches(F.plow(["speed": .double(5)])))
        #expect(!clause.matches(F.plow(["speed": .null])))
        #expect(clause.evaluate(F.plow(["speed": .null])) == .unknown)
    }

    /// Clauses compiled once keep working for rows of a schema that grew afterwards.
    @Test func schemaGrowth() throws {
        var schema = Schema(fields: [Field(name: "a", type: .integer)])
        let clause = try WhereClause("a = 1", schema: schema)
        schema.appendField(Field(name: "b", type: .string))
        #expect(clause.matches(WhereArrayRow(values: [.int(1), .string("x")])))
    }
}
