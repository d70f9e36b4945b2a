import EntityStreamModel
/// One aggregate call, `AVG(Diabetes)` or `COUNT(*)`, met in a clause parsed
/// with aggregate functions (an SQL `HAVING` clause over group records).
///
/// The where engine reads each call as a reference to the synthetic field
/// ``fieldName``; the caller supplies a schema holding those fields and rows
/// carrying the aggregate values. A plain value type.
package struct WhereAggregateCall: Sendable, Hashable {
    /// The function as the caller listed it (upper case, e.g. `AVG`).
    package var function: String
    /// The argument field name as written (quotes removed); nil for `*`.
    package var argument: String?
    /// 1-based Unicode scalar position of the function name in the clause.
    package var position: Int

    package init(function: String, argument: String?, position: Int) {
        self.function = function
        self.argument = argument
        self.position = position
    }

    /// The synthetic field the call is read as: `AVG(Diabetes)`, `COUNT(*)`.
    /// Field lookup is ASCII case-insensitive, so `avg(diabetes)` reads the
    /// same field as `AVG(Diabetes)`.
    package var fieldName: String { "\(function)(\(argument ?? "*"))" }
}

/// A field name met outside any aggregate call, with its 1-based Unicode
/// scalar position (so a `HAVING` clause can refuse it with a pointer).
package struct WhereFieldReference: Sendable, Hashable {
    package var name: String
    package var position: Int
}

/// What a clause parsed with aggregate functions refers to.
package struct WhereAggregateReferences: Sendable, Hashable {
    /// Every aggregate call, in text order (repeats included).
    package var calls: [WhereAggregateCall]
    /// Every field name outside an aggregate call, in text order.
    package var fields: [WhereFieldReference]
}

extension WhereClause {
    /// Parses `text` (syntax only, no schema) reading calls of
    /// `aggregateFunctions` (upper-case names, matched case-insensitively;
    /// each takes exactly one field name or `*`) as synthetic fields, and
    /// returns the calls and the plain field names it met. Ordinary where
    /// clauses never go through this path.
    /// - Throws: ``WhereClauseError`` for any syntax error, with its position.
    package static func aggregateReferences(in text: String, aggregateFunctions: [String]) throws(WhereClauseError)
        -> WhereAggregateReferences {
        let parsed = try WhereParser.parse(Array(text.unicodeScalars), aggregateFunctions: aggregateFunctions)
        return WhereAggregateReferences(calls: parsed.calls, fields: parsed.fields)
    }

    /// Compiles `text` against `schema`, reading every call of
    /// `aggregateFunctions` as the schema field named
    /// ``WhereAggregateCall/fieldName``; everything else (operators, types,
    /// three-valued logic, positions in errors) is the ordinary engine's.
    /// - Throws: ``WhereClauseError`` for any syntax error, unknown field or
    ///   function, or static type mismatch.
    package init(_ text: String, schema: Schema, aggregateFunctions: [String]) throws(WhereClauseError) {
        self.text = text
        let scalars = Array(text.unicodeScalars)
        guard let expression = try WhereParser.parse(scalars, aggregateFunctions: aggregateFunctions).expression else {
            condition = .constant(.true)
            referencedFieldIndices = []
            return
        }
        var compiler = WhereCompiler(schema: schema, scalars: scalars)
        condition = try compiler.condition(expression)
        referencedFieldIndices = compiler.referencedFields.sorted()
    }
}
