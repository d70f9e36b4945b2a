/// One lexical token of a where clause, with its 1-based Unicode scalar
/// position and its source spelling (for error messages).
struct WhereToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// An unquoted name: a field, a function, or a keyword. `folded` is
        /// the spelling ASCII case-folded by ``Schema/fold(_:)`` (lowercase),
        /// used for keyword and function matching.
        case identifier(name: String, folded: String)
        /// A `"double quoted"` field name (may contain spaces; `""` escapes `"`).
        case quotedIdentifier(String)
        /// A `'string literal'` (`''` escapes `'`). `scalarPositions[i]` is the
        /// source position of content scalar `i` (needed to point at LIKE
        /// escape errors exactly).
        case string(String, scalarPositions: [Int])
        /// An integer literal that fits `Int64`.
        case integer(Int64)
        /// A decimal or exponent literal, or an integer too large for `Int64`.
        case decimal(Double)
        case symbol(WhereSymbol)
        case end
    }

    var kind: Kind
    /// 1-based Unicode scalar position of the token's first scalar.
    var position: Int
    /// The token as written.
    var text: String

    /// True when this is the unquoted keyword `keyword` (given folded, i.e. lowercase).
    func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(_, let folded) = kind { return folded == keyword }
        return false
    }

    func isSymbol(_ symbol: WhereSymbol) -> Bool {
        if case .symbol(let s) = kind { return s == symbol }
        return false
    }

    var isEnd: Bool {
        if case .end = kind { return true }
        return false
    }

    /// How an error message names this token: `'AND'`, `string 'abc'`, `end of clause`.
    var quoted: String {
        switch kind {
        case .end: return "end of clause"
        case .string: return "string \(text)"
        default: return "'\(text)'"
        }
    }
}

/// Punctuation and operator tokens.
enum WhereSymbol: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case plus = "+"
    case minus = "-"
    case star = "*"
    case slash = "/"
    case leftParen = "("
    case rightParen = ")"
    case comma = ","
}

/// Keywords that can never be field names unless double-quoted, folded
/// (lowercase). `DATE`, `TIMESTAMP` and `ESCAPE` are contextual (only
/// special where the grammar expects them), so fields with those names work
/// unquoted.
let whereReservedWords: Set<String> = ["and", "or", "not", "in", "is", "null", "like", "between"]
