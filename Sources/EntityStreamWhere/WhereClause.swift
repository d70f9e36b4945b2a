import EntityStreamModel
/// A parsed, type-checked where clause (ArcGIS's SQL-92 subset), ready to
/// evaluate against rows of the ``Schema`` it was compiled for.
///
/// Construction does all the work once: lexing, parsing, resolving field
/// names to indices (case-insensitively), static type checking against the
/// declared field types, pre-converting literals and folding constants.
/// It throws ``WhereClauseError`` (with a 1-based Unicode-scalar position)
/// for any syntax error, unknown field or function, invalid literal, or type
/// mismatch detectable from declared types. Empty or whitespace-only text
/// is valid and means "every row", like `1=1`.
///
/// Evaluation never throws and never traps; it follows SQL three-valued
/// logic (see ``SQLTruth``). Because a ``Schema`` only grows, a clause stays
/// valid for rows of later versions of the same schema.
///
/// Semantics in brief (details on the internal types):
/// - Strings compare and `LIKE`-match binary and case-sensitively (UTF-8 /
///   Unicode scalar order, no normalization); `_` and `CHAR_LENGTH` count
///   Unicode scalars.
/// - `.int`, `.double`, `.date` (epoch ms) and `.bool` (1/0) compare with
///   each other numerically; dates also mix with numbers in arithmetic.
///   `TRUE`/`FALSE` literals are not accepted (ArcGIS's standardized SQL
///   has none); compare booleans with 1 or 0.
/// - `/` is exact division (`7 / 2 = 3.5`, `6 / 3 = 2`); division by zero
///   yields NULL; integer overflow falls back to `Double`.
/// - `date`/`timestamp` literals are UTC; a comparison between values of
///   incompatible runtime types is `unknown`.
///
/// A value type; `Sendable`, so one compiled clause can be shared by any
/// number of tasks. Two clauses are equal when their text and compiled form
/// are equal.
public struct WhereClause: Sendable, Hashable {
    /// The clause exactly as given.
    public let text: String
    /// Every field the text mentions, as schema indices, sorted and unique
    /// (including fields in branches that constant folding removed, e.g.
    /// `1=1 OR speed > 0`, so it is safe to use for choosing `outFields`).
    public let referencedFieldIndices: [Int]
    package let condition: WhereCondition

    /// Parses and type-checks `text` against `schema`.
    /// - Throws: ``WhereClauseError`` for any syntax error, unknown field or
    ///   function, invalid literal, or static type mismatch.
    public init(_ text: String, schema: Schema) throws(WhereClauseError) {
        self.text = text
        let scalars = Array(text.unicodeScalars)
        guard let expression = try WhereParser.parse(scalars) else {
            condition = .constant(.true)
            referencedFieldIndices = []
            return
        }
        var compiler = WhereCompiler(schema: schema, scalars: scalars)
        condition = try compiler.condition(expression)
        referencedFieldIndices = compiler.referencedFields.sorted()
    }

    /// Checks only the syntax of `text` (no schema needed), so a command line
    /// can reject a malformed clause before it knows the fields.
    /// - Throws: ``WhereClauseError`` for any syntax error, with its position.
    public static func checkSyntax(_ text: String) throws(WhereClauseError) {
        _ = try WhereParser.parse(Array(text.unicodeScalars))
    }

    /// The clause's truth value for `row` (SQL three-valued logic).
    public func evaluate(_ row: some AttributeRow) -> SQLTruth {
        condition.evaluate(row)
    }

    /// True when the clause is `true` for `row`; `unknown` excludes the row
    /// (SQL `WHERE` semantics).
    public func matches(_ row: some AttributeRow) -> Bool {
        condition.evaluate(row) == .true
    }

    /// True when the clause keeps every row whatever its values: empty text,
    /// `1=1`, and anything else that folds to constant true (`2 > 1`,
    /// `1=1 OR speed > 0`, `NOT 1=0`). ArcGIS's way of saying "no filter".
    public var isTautology: Bool {
        condition == .constant(.true)
    }

    /// True when the clause can never keep a row (folds to constant false or
    /// unknown, e.g. `1=0`, `speed = NULL`).
    public var isContradiction: Bool {
        condition == .constant(.false) || condition == .constant(.unknown)
    }
}
