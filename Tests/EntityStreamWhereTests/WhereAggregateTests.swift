import EntityStreamTestSupport
import Testing
@testable import EntityStreamCore
@testable import EntityStreamModel
@testable import EntityStreamWhere

@Suite("Where: aggregate calls read as synthetic fields (the HAVING hook)", .bounded)
struct WhereAggregateTests {
    static let aggregates = ["AVG", "COUNT", "SUM", "STDDEV", "MIN", "MAX", "VAR"]

    /// A row whose value at index i is values[i].
    struct Row: AttributeRow {
        var values: [AttributeValue]
        func value(at fieldIndex: Int) -> AttributeValue {
            values.indices.contains(fieldIndex) ? values[fieldIndex] : .null
        }
    }

    /// Calls and plain field names are reported in text order with their 1-based positions.
    @Test
    func referencesAndPositions() throws {
        let refs = try WhereClause.aggregateReferences(
            in: "AVG(speed) > 10 AND count(*) >= 5 OR State = 'CA' AND max(\"my field\") < 3",
            aggregateFunctions: Self.aggregates)
        #expect(refs.calls == [
            WhereAggregateCall(function: "AVG", argument: "speed", position: 1),
            WhereAggregateCall(function: "COUNT", argument: nil, position: 21),
            WhereAggregateCall(function: "MAX", argument: "my field", position: 55),
        ])
        #expect(refs.calls.map(\.fieldName) == ["AVG(speed)", "COUNT(*)", "MAX(my field)"])
        #expect(refs.fields == [WhereFieldReference(name: "State", position: 38)])
    }

    /// A clause compiled against a synthetic schema evaluates with SQL logic on the aggregate values.
    @Test(arguments: [
        ([AttributeValue.double(12), .int(5)], SQLTruth.true),
        ([.double(12), .int(4)], .false),
        ([.double(9), .int(9)], .false),
        ([.null, .int(9)], .unknown),
    ])
    func evaluatesOnSyntheticFields(values: [AttributeValue], expected: SQLTruth) throws {
        let schema = Schema(fields: [Field(name: "AVG(speed)", type: .double), Field(name: "COUNT(*)", type: .bigInteger)])
        let clause = try WhereClause("avg(SPEED) > 10 AND COUNT(*) >= 5", schema: schema, aggregateFunctions: Self.aggregates)
        #expect(clause.evaluate(Row(values: values)) == expected)
        #expect(clause.referencedFieldIndices == [0, 1])
    }

    /// Scalar functions and arithmetic still apply around aggregate calls.
    @Test
    func composesWithScalarFunctions() throws {
        let schema = Schema(fields: [Field(name: "MIN(x)", type: .double), Field(name: "MAX(x)", type: .double)])
        let clause = try WhereClause("ABS(MAX(x) - MIN(x)) BETWEEN 2 AND 4", schema: schema, aggregateFunctions: Self.aggregates)
        #expect(clause.matches(Row(values: [.double(-1), .double(2)])))
        #expect(!clause.matches(Row(values: [.double(-1), .double(5)])))
    }

    /// Malformed aggregate calls are rejected with a message and the position of the culprit.
    @Test(arguments: [
        ("AVG(x + 1) > 2", 7, "expected ')' to close '(' opened at 4"),
        ("AVG() > 2", 5, "AVG expects a field name or '*', found ')'"),
        ("AVG(1) > 2", 5, "AVG expects a field name or '*', found '1'"),
        ("COUNT(x, y) > 2", 10, "COUNT expects 1 argument, found more"),
        ("COUNT(DISTINCT x) > 2", 7, "DISTINCT is not supported in aggregates"),
        ("MEDIAN(x) > 2", 1, "unknown function 'MEDIAN' (aggregates: AVG, COUNT, SUM, STDDEV, MIN, MAX, VAR)"),
        ("AVG(x > 2", 7, "expected ')' to close '(' opened at 4"),
    ])
    func malformedCalls(text: String, position: Int, message: String) {
        #expect(throws: WhereClauseError.self) { try WhereClause.aggregateReferences(in: text, aggregateFunctions: Self.aggregates) }
        do {
            _ = try WhereClause.aggregateReferences(in: text, aggregateFunctions: Self.aggregates)
        } catch {
            #expect(error.position == position)
            #expect(error.message == message)
        }
    }

    /// An ordinary where clause still knows no aggregate functions.
    @Test
    func ordinaryClausesUnchanged() {
        let schema = Schema(fields: [Field(name: "x", type: .double)])
        do {
            _ = try WhereClause("AVG(x) > 1", schema: schema)
            Issue.record("AVG accepted in a where clause")
        } catch {
            #expect(error.message == "unknown function 'AVG'")
            #expect(error.position == 1)
        }
    }
}
