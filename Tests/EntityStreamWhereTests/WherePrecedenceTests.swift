import EntityStreamTestSupport
import Testing
import EntityStreamCore
import EntityStreamWhere
import EntityStreamModel

@Suite("Where precedence: NOT > AND > OR, arithmetic and comparisons bind tighter", .bounded)
struct WherePrecedenceTests {
    typealias F = WhereFixture

    /// AND binds tighter than OR: `a OR b AND c` is `a OR (b AND c)`.
    @Test func andBeforeOr() throws {
        let row = F.plow(["agency": .int(1)])   // a true, b false, c false
        #expect(try F.evaluate("agency = 1 OR agency = 3 AND speed > 100", row) == .true)
        #expect(try F.evaluate("(agency = 1 OR agency = 3) AND speed > 100", row) == .false)
        #expect(try F.evaluate("speed > 100 AND agency = 3 OR agency = 1", row) == .true)
    }

    /// NOT binds tighter than AND: `NOT a = 1 AND b = 2` is `(NOT a = 1) AND b = 2`.
    @Test func notBeforeAnd() throws {
        #expect(try F.evaluate("NOT agency = 1 AND speed > 100") == .false)
        #expect(try F.evaluate("NOT (agency = 1 AND speed > 100)") == .true)
        #expect(try F.evaluate("NOT agency = 3 OR speed > 20") == .true)
        #expect(try F.evaluate("NOT NOT agency = 3") == .true)
        #expect(try F.evaluate("agency = 3 OR NOT agency = 3 AND speed > 1000") == .true)
    }

    /// Comparisons bind looser than arithmetic, and NOT applies to the whole comparison.
    @Test func arithmeticBeforeComparison() throws {
        #expect(try F.evaluate("agency + 2 * 3 = 9") == .true)      // 3 + 6
        #expect(try F.evaluate("agency + 2 * 3 = 15") == .false)
        #expect(try F.evaluate("NOT agency + 1 = 5") == .true)      // NOT (4 = 5)
        #expect(try F.evaluate("agency * 2 > 5 AND agency * 2 < 7") == .true)
    }

    /// * and / bind tighter than + and -, all left-associative.
    @Test(arguments: [
        ("speed - 5 - 5 = 15.5", SQLTruth.true), ("12 / 2 / 3 = 2", .true), ("2 + 3 * 4 - 6 / 2 = 11", .true),
        ("10 - 4 + 1 = 7", .true), ("2 * 3 + 4 * 5 = 26", .true), ("100 / 10 * 2 = 20", .true),
    ])
    func arithmeticPrecedence(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// Unary minus binds tightest and can repeat.
    @Test(arguments: [
        ("-agency * 2 = -6", SQLTruth.true), ("- - agency = 3", .true), ("-agency + 5 = 2", .true),
        ("2 - -agency = 5", .true), ("-(agency + 1) = -4", .true), ("-2 * -3 = 6", .true),
        ("---agency = -3", .true),
    ])
    func unaryMinus(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// Parentheses override every precedence level.
    @Test(arguments: [
        ("(agency + 2) * 3 = 15", SQLTruth.true), ("(agency = 1 OR agency = 3) AND speed > 100", .false),
        ("12 / (2 / 3) = 18", .true), ("(NOT agency = 1) AND speed < 100", .true),
        ("NOT (agency = 3 OR speed > 1000)", .false), ("(speed) > ((20))", .true),
    ])
    func parentheses(clause: String, expected: SQLTruth) throws {
        #expect(try F.evaluate(clause) == expected)
    }

    /// BETWEEN's AND is not a logical AND; the clause continues after the upper bound.
    @Test func betweenAnd() throws {
        #expect(try F.evaluate("speed BETWEEN 1 AND 30 AND agency = 4") == .false)
        #expect(try F.evaluate("speed BETWEEN 1 AND 30 AND agency = 3") == .true)
        #expect(try F.evaluate("speed BETWEEN 1 + 1 AND 10 * 3") == .true)
        #expect(try F.evaluate("agency = 4 OR speed BETWEEN 1 AND 30") == .true)
    }
}
