import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamWhere
import EntityStreamModel

@Suite("Where errors: message and exact 1-based Unicode-scalar position", .bounded)
struct WhereErrorTests {
    typealias F = WhereFixture

    /// Each malformed clause is rejected with this message at this position.
    @Test(arguments: [
        // unknown names
        ("spede > 0", 1, "unknown field 'spede'"),
        ("speed > 0 AND spede < 3", 15, "unknown field 'spede'"),
        ("\"speed  limit\" > 0", 1, "unknown field 'speed  limit'"),
        ("agency = TRUE", 10, "unknown field 'TRUE' (boolean literals are not supported; compare with 1 or 0)"),
        ("foo(speed) > 1", 1, "unknown function 'foo'"),
        ("speed > 0 OR substring(vehiclename) = 'a'", 14, "unknown function 'substring'"),
        // trailing tokens and unbalanced parentheses
        ("agency = 1 b", 12, "unexpected 'b' after end of condition"),
        ("speed = 1 = 2", 11, "unexpected '=' after end of condition"),
        ("speed > 0 'x'", 11, "unexpected string 'x' after end of condition"),
        ("speed > 0)", 10, "unmatched ')'"),
        ("(speed > 0", 11, "expected ')' to close '(' opened at 1"),
        ("agency = (1 + (2)", 18, "expected ')' to close '(' opened at 10"),
        ("((agency = 1) OR (speed > 2)", 29, "expected ')' to close '(' opened at 1"),
        ("UPPER(vehiclename = 'A'", 24, "expected ')' to close '(' opened at 6"),
        // missing operands
        ("speed >", 8, "expected an operand after '>', found end of clause"),
        ("speed > AND agency = 1", 9, "expected an operand after '>', found 'AND'"),
        ("> 5", 1, "expected an operand, found '>'"),
        ("agency = 1 AND", 15, "expected an operand after 'AND', found end of clause"),
        ("agency = 1 OR OR agency = 2", 15, "expected an operand after 'OR', found 'OR'"),
        ("NOT", 4, "expected an operand after 'NOT', found end of clause"),
        ("()", 2, "expected an operand after '(', found ')'"),
        ("speed * / 2 > 1", 9, "expected an operand after '*', found '/'"),
        ("agency IN (1,)", 14, "expected an operand after ',', found ')'"),
        ("speed -", 8, "expected an operand after '-', found end of clause"),
        // numbers
        ("speed = 1.2.3", 9, "malformed number '1.2.3'"),
        ("speed = 12abc", 9, "malformed number '12abc'"),
        ("speed = 1e", 9, "malformed number '1e'"),
        ("speed = 1e+ 5", 9, "malformed number '1e+'"),
        ("speed = 1..2", 9, "malformed number '1..2'"),
        ("speed = 1e999", 9, "number '1e999' is out of range"),
        // strings and quoted names
        ("vehiclename = 'abc", 15, "unterminated string literal"),
        ("vehiclename = 'it''s", 15, "unterminated string literal"),
        ("\"speed limit > 5", 1, "unterminated quoted identifier"),
        ("\"\" = 1", 1, "empty quoted identifier"),
        ("speed # 5", 7, "unexpected character '#'"),
        ("speed ! 5", 7, "unexpected character '!' (did you mean '!=' or NOT?)"),
        ("speed = 5;", 10, "unexpected character ';'"),
        // IN, BETWEEN, LIKE, IS
        ("agency IN ()", 12, "IN list is empty"),
        ("agency NOT IN ( )", 17, "IN list is empty"),
        ("agency IN 1", 11, "expected '(' after IN, found '1'"),
        ("agency IN (1, 2", 16, "expected ')' to close '(' opened at 11"),
        ("agency IN (1 2)", 14, "expected ')' to close '(' opened at 11"),
        ("speed BETWEEN 1", 16, "expected AND to complete BETWEEN, found end of clause"),
        ("speed BETWEEN 1 OR 2", 17, "expected AND to complete BETWEEN, found 'OR'"),
        ("speed BETWEEN AND 2", 15, "expected an operand after 'BETWEEN', found 'AND'"),
        ("vehiclename LIKE speed", 18, "LIKE pattern must be a string literal, found 'speed'"),
        ("vehiclename LIKE", 17, "LIKE pattern must be a string literal, found end of clause"),
        ("speed IS 5", 10, "expected NULL after IS, found '5'"),
        ("speed IS NOT", 13, "expected NULL after IS NOT, found end of clause"),
        ("speed NOT 5", 11, "expected IN, BETWEEN or LIKE after 'NOT', found '5'"),
        ("speed NOT NULL", 11, "expected IN, BETWEEN or LIKE after 'NOT', found 'NULL'"),
        // functions
        ("UPPER() = 'a'", 7, "UPPER expects 1 argument, found none"),
        ("UPPER(vehiclename, 1) = 'A'", 20, "UPPER expects 1 argument, found more"),
        // conditions vs values
        ("speed", 1, "expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found double field 'speed'"),
        ("1", 1, "expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found number 1"),
        ("speed > 1 AND vehiclename", 15, "expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found string field 'vehiclename'"),
        ("NOT speed", 5, "expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found double field 'speed'"),
        ("(speed > 1) + 1 = 2", 1, "expected a value, found a condition"),
        ("speed = (agency = 3)", 9, "expected a value, found a condition"),
        ("UPPER(speed > 1) = 'A'", 7, "expected a value, found a condition"),
        // reserved words
        ("and = 1", 1, "expected an operand, found 'and'"),
        ("speed > 1 AND in = 2", 15, "expected an operand after 'AND', found 'in'"),
    ])
    func syntaxErrors(text: String, position: Int, message: String) throws {
        let error = try #require(F.error(text), "\(text) should be rejected")
        #expect(error.message == message, "\(text)")
        #expect(error.position == position, "\(text)")
    }

    /// Static type mismatches are errors at the offending operand.
    @Test(arguments: [
        ("speed > 'fast'", 9, "cannot compare double field 'speed' with string 'fast'"),
        ("'fast' < speed", 10, "cannot compare string 'fast' with double field 'speed'"),
        ("agency = '3'", 10, "cannot compare integer field 'agency' with string '3'"),
        ("vehiclename = 5", 15, "cannot compare string field 'vehiclename' with number 5"),
        ("vehiclename = speed", 15, "cannot compare string field 'vehiclename' with double field 'speed'"),
        ("lastupdate > 'x'", 14, "cannot compare date field 'lastupdate' with string 'x'"),
        ("vehiclename > date '2024-01-01'", 15, "cannot compare string field 'vehiclename' with date literal"),
        ("speed IN (1, 'a')", 14, "cannot compare double field 'speed' with string 'a'"),
        ("speed BETWEEN 'a' AND 5", 15, "cannot compare double field 'speed' with string 'a'"),
        ("speed BETWEEN 1 AND 'z'", 21, "cannot compare double field 'speed' with string 'z'"),
        ("UPPER(vehiclename) = 1", 22, "cannot compare string expression with number 1"),
        ("speed + 1 = 'x'", 13, "cannot compare numeric expression with string 'x'"),
        ("'it''s' = 1", 11, "cannot compare string 'it''s' with number 1"),
        ("UPPER(speed) = 'A'", 7, "UPPER needs a string argument, found double field 'speed'"),
        ("LOWER(agency) = 'a'", 7, "LOWER needs a string argument, found integer field 'agency'"),
        ("CHAR_LENGTH(lastupdate) = 1", 13, "CHAR_LENGTH needs a string argument, found date field 'lastupdate'"),
        ("ABS(vehiclename) = 1", 5, "ABS needs a numeric argument, found string field 'vehiclename'"),
        ("vehiclename + 1 > 2", 1, "'+' needs numeric operands, found string field 'vehiclename'"),
        ("1 + vehiclename > 2", 5, "'+' needs numeric operands, found string field 'vehiclename'"),
        ("speed * 'a' > 2", 9, "'*' needs numeric operands, found string 'a'"),
        ("- 'a' = 1", 3, "'-' needs a numeric operand, found string 'a'"),
        ("-vehiclename = 1", 2, "'-' needs a numeric operand, found string field 'vehiclename'"),
        ("speed LIKE 'a%'", 1, "LIKE needs a string operand, found double field 'speed'"),
        ("agency NOT LIKE 'a%'", 1, "LIKE needs a string operand, found integer field 'agency'"),
        ("lastupdate LIKE '2024%'", 1, "LIKE needs a string operand, found date field 'lastupdate'"),
        ("ABS(speed) LIKE '1%'", 1, "LIKE needs a string operand, found numeric expression"),
        ("objectid = 'a'", 12, "cannot compare object id field 'objectid' with string 'a'"),
    ])
    func typeErrors(text: String, position: Int, message: String) throws {
        let error = try #require(F.error(text), "\(text) should be rejected")
        #expect(error.message == message, "\(text)")
        #expect(error.position == position, "\(text)")
    }

    /// Positions count Unicode scalars, not bytes or UTF-16 units.
    @Test func positionsAreUnicodeScalars() throws {
        let error = try #require(F.error("vehiclename = 'é日😀' AND spede = 1"))
        #expect(error.position == 25)
        #expect(error.message == "unknown field 'spede'")
        let tail = try #require(F.error("vehiclename = '😀😀😀' AND"))
        #expect(tail.position == 24)
    }

    /// The description names position, message and nearby text.
    @Test func description() throws {
        let error = try #require(F.error("speed > 0 AND spede > 0"))
        #expect(error.description == "where clause error at position 15: unknown field 'spede' (near \"spede > 0\")")
        let atEnd = try #require(F.error("speed >"))
        #expect(atEnd.description == "where clause error at position 8: expected an operand after '>', found end of clause (at end of clause)")
        let long = try #require(F.error("spede > 0 AND vehiclename LIKE 'TRUCK%' AND agency IN (1, 2)"))
        #expect(long.near == "spede > 0 AND vehiclenam…")
        #expect(String(describing: long).hasPrefix("where clause error at position 1: unknown field 'spede' (near \"spede > 0"))
    }

    /// Errors are plain values: equal when position, message and context are.
    @Test func errorsAreValues() {
        #expect(F.error("spede > 0") == WhereClauseError(position: 1, message: "unknown field 'spede'", near: "spede > 0"))
        #expect(F.error("spede > 0") != F.error("sped > 0"))
    }

    /// Too-deep nesting is a clean error, never a stack overflow.
    @Test func nestingLimits() throws {
        let deepParens = String(repeating: "(", count: 10_000) + "speed > 0" + String(repeating: ")", count: 10_000)
        let parens = try #require(F.error(deepParens))
        #expect(parens.message == "expression is nested too deeply (more than 64 levels)")
        #expect(parens.position == 65)
        let minuses = try #require(F.error("speed = " + String(repeating: "- ", count: 5_000) + "1"))
        #expect(minuses.message.hasPrefix("expression is nested too deeply"))
        let nots = try #require(F.error(String(repeating: "NOT ", count: 5_000) + "speed > 1"))
        #expect(nots.message.hasPrefix("expression is nested too deeply"))
        let nestedSums = try #require(F.error("speed = " + String(repeating: "(1 + ", count: 100) + "1" + String(repeating: ")", count: 100)))
        #expect(nestedSums.message.hasPrefix("expression is nested too deeply"))
        let functions = try #require(F.error(String(repeating: "UPPER(", count: 3_000) + "vehiclename" + String(repeating: ")", count: 3_000) + " = 'A'"))
        #expect(functions.message.hasPrefix("expression is nested too deeply"))
        // Reasonable nesting is fine.
        #expect(F.error(String(repeating: "(", count: 50) + "speed > 0" + String(repeating: ")", count: 50)) == nil)
        #expect(F.error("speed = " + Array(repeating: "1", count: 100).joined(separator: " + ")) == nil)
    }

    /// Long flat arithmetic chains are not "nesting": `1 + 1 + …` of 130 or
    /// 5,000 terms compiles and adds up, left to right; so do products.
    @Test(arguments: [130, 5_000]) func longArithmeticChains(terms: Int) throws {
        let sum = try WhereClause("agency = " + Array(repeating: "1", count: terms).joined(separator: " + "), schema: F.schema)
        #expect(sum.matches(F.plow(["agency": .int(Int64(terms))])))
        #expect(!sum.matches(F.plow(["agency": .int(Int64(terms - 1))])))
        let mixed = try WhereClause("agency = speed" + String(repeating: " + 2 * 3 - 5", count: terms), schema: F.schema)
        #expect(mixed.matches(F.plow(["agency": .int(10 + Int64(terms)), "speed": .int(10)])))
        let product = try WhereClause("agency = speed" + String(repeating: " * 1", count: terms) + " / 2", schema: F.schema)
        #expect(product.matches(F.plow(["agency": .int(21), "speed": .int(42)])))
    }

    /// Long flat AND/OR chains and IN lists are not "nesting" and compile fine.
    @Test func longFlatClauses() throws {
        let ors = (0..<5_000).map { "agency = \($0)" }.joined(separator: " OR ")
        let clause = try WhereClause(ors, schema: F.schema)
        #expect(clause.matches(F.row(F.plow)))
        let list = "agency IN (" + (0..<10_000).map(String.init).joined(separator: ", ") + ")"
        #expect(try WhereClause(list, schema: F.schema).matches(F.plow(["agency": .int(9_999)])))
    }
}
