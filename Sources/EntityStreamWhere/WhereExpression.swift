/// The syntax tree of a where clause, as parsed (names not yet resolved,
/// types not yet checked). Every node records the 1-based scalar position
/// where it starts, for error messages, and its height, so that the parser
/// can refuse trees too deep to walk recursively.
struct WhereExpression: Sendable, Hashable {
    indirect enum Kind: Sendable, Hashable {
        // Values
        case field(name: String)
        case integer(Int64)
        case decimal(Double)
        case string(String)
        case null
        /// A `date '…'` / `timestamp '…'` literal, already converted.
        case date(milliseconds: Int64)
        case negate(WhereExpression)
        case unaryPlus(WhereExpression)
        /// A left-associative chain `first op₁ a₁ op₂ a₂ …` of one precedence
        /// level (`+ -` or `* /`): flat, so its length is not nesting.
        case arithmetic(WhereExpression, [WhereArithmeticStep])
        case function(WhereFunction, WhereExpression)
        // Conditions
        case comparison(WhereComparisonOperator, WhereExpression, WhereExpression)
        case inList(WhereExpression, [WhereExpression], negated: Bool)
        case between(WhereExpression, low: WhereExpression, high: WhereExpression, negated: Bool)
        /// `pattern == nil` for `LIKE NULL`.
        case like(WhereExpression, pattern: LikePattern?, negated: Bool)
        case isNull(WhereExpression, negated: Bool)
        case and([WhereExpression])
        case or([WhereExpression])
        case not(WhereExpression)
    }

    var kind: Kind
    /// 1-based Unicode scalar position of the node's first token.
    var position: Int
    /// 1 for leaves; 1 + the deepest child otherwise.
    var height: Int
}

/// One `op operand` step of an arithmetic chain.
struct WhereArithmeticStep: Sendable, Hashable {
    var op: WhereArithmeticOperator
    var operand: WhereExpression
}

/// `= <> < <= > >=` (`!=` is read as `<>`). The raw values are the
/// ``WhereSymbol`` spellings: the parser maps a symbol by its raw value.
package enum WhereComparisonOperator: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// `+ - * /`.
package enum WhereArithmeticOperator: String, Sendable, Hashable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
}

/// The scalar functions the engine knows (names are case-insensitive).
package enum WhereFunction: String, Sendable, Hashable, CaseIterable {
    case upper = "UPPER"
    case lower = "LOWER"
    case charLength = "CHAR_LENGTH"
    case abs = "ABS"

    /// Looks up a function name folded by ``Schema/fold(_:)`` (lowercase);
    /// `CHARACTER_LENGTH` is an alias of `CHAR_LENGTH`.
    init?(folded name: String) {
        switch name {
        case "upper": self = .upper
        case "lower": self = .lower
        case "char_length", "character_length": self = .charLength
        case "abs": self = .abs
        default: return nil
        }
    }
}
