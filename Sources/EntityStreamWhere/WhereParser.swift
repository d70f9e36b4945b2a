import EntityStreamModel
/// Recursive-descent parser from tokens to a ``WhereExpression``.
///
/// Grammar (precedence low → high; keywords case-insensitive):
/// ```
/// clause     := [ or ] END
/// or         := and { OR and }
/// and        := not { AND not }
/// not        := NOT not | predicate
/// predicate  := sum [ compOp sum
///                   | [NOT] IN '(' sum { ',' sum } ')'
///                   | [NOT] BETWEEN sum AND sum
///                   | [NOT] LIKE (string | NULL) [ ESCAPE string ]
///                   | IS [NOT] NULL ]
/// sum        := product { ('+' | '-') product }
/// product    := unary { ('*' | '/') unary }
/// unary      := ('-' | '+') unary | primary
/// primary    := number | string | NULL | (DATE | TIMESTAMP) string
///             | function '(' or ')' | field | '"quoted field"' | '(' or ')'
/// ```
/// Parentheses may hold either a condition or a value; which one is needed
/// where is checked by ``WhereCompiler``. Nesting is limited
/// (``maximumNesting``, ``maximumHeight``) so no input can exhaust the stack;
/// chains of one level (`AND`, `OR`, `+ -`, `* /`) are flat nodes, so
/// their length is not nesting.
struct WhereParser {
    static let maximumNesting = 64
    static let maximumHeight = 128

    private let tokens: [WhereToken]
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var nesting = 0
    /// Aggregate functions (upper case) whose calls are read as synthetic
    /// fields; empty for an ordinary where clause (see `WhereAggregates.swift`).
    private let aggregateFunctions: [String]
    /// The aggregate calls met, in text order.
    private(set) var aggregateCalls: [WhereAggregateCall] = []
    /// The field names met outside aggregate calls, in text order.
    private(set) var fieldReferences: [WhereFieldReference] = []

    init(tokens: [WhereToken], scalars: [Unicode.Scalar], aggregateFunctions: [String] = []) {
        self.tokens = tokens
        self.scalars = scalars
        self.aggregateFunctions = aggregateFunctions
    }

    /// Parses a whole clause; nil for an empty (whitespace-only) clause.
    static func parse(_ scalars: [Unicode.Scalar]) throws(WhereClauseError) -> WhereExpression? {
        var parser = try WhereParser(tokens: WhereLexer.tokenize(scalars), scalars: scalars)
        return try parser.parseClause()
    }

    /// Parses a whole clause in which calls of `aggregateFunctions` are read
    /// as synthetic fields; also returns the calls and the plain field names met.
    static func parse(_ scalars: [Unicode.Scalar], aggregateFunctions: [String]) throws(WhereClauseError)
        -> (expression: WhereExpression?, calls: [WhereAggregateCall], fields: [WhereFieldReference]) {
        var parser = try WhereParser(tokens: WhereLexer.tokenize(scalars), scalars: scalars,
                                     aggregateFunctions: aggregateFunctions)
        let expression = try parser.parseClause()
        return (expression, parser.aggregateCalls, parser.fieldReferences)
    }

    private mutating func parseClause() throws(WhereClauseError) -> WhereExpression? {
        if current.isEnd { return nil }
        let expression = try parseOr()
        let trailing = current
        if !trailing.isEnd {
            if trailing.isSymbol(.rightParen) {
                throw error("unmatched ')'", at: trailing.position)
            }
            throw error("unexpected \(trailing.quoted) after end of condition", at: trailing.position)
        }
        return expression
    }

    // MARK: - Helpers

    private var current: WhereToken { tokens[min(index, tokens.count - 1)] }

    private func peek(_ offset: Int) -> WhereToken { tokens[min(index + offset, tokens.count - 1)] }

    private mutating func advance() -> WhereToken {
        let token = current
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func error(_ message: String, at position: Int) -> WhereClauseError {
        WhereClauseError(position: position, message: message, in: scalars)
    }

    private mutating func enter(at position: Int) throws(WhereClauseError) {
        nesting += 1
        if nesting > Self.maximumNesting {
            throw error("expression is nested too deeply (more than \(Self.maximumNesting) levels)", at: position)
        }
    }

    private mutating func leave() { nesting -= 1 }

    private func node(_ kind: WhereExpression.Kind, at position: Int, children: [WhereExpression]) throws(WhereClauseError) -> WhereExpression {
        var height = 0
        for child in children { height = max(height, child.height) }
        height += 1
        if height > Self.maximumHeight {
            throw error("expression is nested too deeply (more than \(Self.maximumHeight) levels)", at: position)
        }
        return WhereExpression(kind: kind, position: position, height: height)
    }

    private func leaf(_ kind: WhereExpression.Kind, at position: Int) -> WhereExpression {
        WhereExpression(kind: kind, position: position, height: 1)
    }

    // MARK: - Conditions

    private mutating func parseOr() throws(WhereClauseError) -> WhereExpression {
        var items = [try parseAnd()]
        while current.isKeyword("or") {
            _ = advance()
            items.append(try parseAnd())
        }
        if items.count == 1 { return items[0] }
        return try node(.or(items), at: items[0].position, children: items)
    }

    private mutating func parseAnd() throws(WhereClauseError) -> WhereExpression {
        var items = [try parseNot()]
        while current.isKeyword("and") {
            _ = advance()
            items.append(try parseNot())
        }
        if items.count == 1 { return items[0] }
        return try node(.and(items), at: items[0].position, children: items)
    }

    private mutating func parseNot() throws(WhereClauseError) -> WhereExpression {
        guard current.isKeyword("not") else { return try parsePredicate() }
        let not = advance()
        try enter(at: not.position)
        let operand = try parseNot()
        leave()
        return try node(.not(operand), at: not.position, children: [operand])
    }

    private mutating func parsePredicate() throws(WhereClauseError) -> WhereExpression {
        let lhs = try parseSum()
        let token = current
        if case .symbol(let symbol) = token.kind, let op = WhereComparisonOperator(rawValue: symbol.rawValue) {
            _ = advance()
            let rhs = try parseSum()
            return try node(.comparison(op, lhs, rhs), at: lhs.position, children: [lhs, rhs])
        }
        var negated = false
        if token.isKeyword("not") {
            let next = peek(1)
            guard next.isKeyword("in") || next.isKeyword("between") || next.isKeyword("like") else {
                throw error("expected IN, BETWEEN or LIKE after '\(token.text)', found \(next.quoted)", at: next.position)
            }
            _ = advance()
            negated = true
        }
        let keyword = current
        if keyword.isKeyword("in") {
            _ = advance()
            return try parseInList(lhs, negated: negated, keyword: keyword)
        }
        if keyword.isKeyword("between") {
            _ = advance()
            let low = try parseSum()
            guard current.isKeyword("and") else {
                throw error("expected AND to complete BETWEEN, found \(current.quoted)", at: current.position)
            }
            _ = advance()
            let high = try parseSum()
            return try node(.between(lhs, low: low, high: high, negated: negated), at: lhs.position, children: [lhs, low, high])
        }
        if keyword.isKeyword("like") {
            _ = advance()
            return try parseLike(lhs, negated: negated)
        }
        if keyword.isKeyword("is") {
            _ = advance()
            var isNegated = false
            if current.isKeyword("not") {
                _ = advance()
                isNegated = true
            }
            guard current.isKeyword("null") else {
                let after = isNegated ? "IS NOT" : "IS"
                throw error("expected NULL after \(after), found \(current.quoted)", at: current.position)
            }
            _ = advance()
            return try node(.isNull(lhs, negated: isNegated), at: lhs.position, children: [lhs])
        }
        return lhs
    }

    private mutating func parseInList(_ lhs: WhereExpression, negated: Bool, keyword: WhereToken) throws(WhereClauseError) -> WhereExpression {
        guard current.isSymbol(.leftParen) else {
            throw error("expected '(' after IN, found \(current.quoted)", at: current.position)
        }
        let open = advance()
        if current.isSymbol(.rightParen) {
            throw error("IN list is empty", at: current.position)
        }
        try enter(at: open.position)
        var items = [try parseSum()]
        while current.isSymbol(.comma) {
            _ = advance()
            items.append(try parseSum())
        }
        leave()
        guard current.isSymbol(.rightParen) else {
            throw error("expected ')' to close '(' opened at \(open.position)", at: current.position)
        }
        _ = advance()
        return try node(.inList(lhs, items, negated: negated), at: lhs.position, children: [lhs] + items)
    }

    private mutating func parseLike(_ lhs: WhereExpression, negated: Bool) throws(WhereClauseError) -> WhereExpression {
        let patternToken = advance()
        var pattern: LikePattern?
        switch patternToken.kind {
        case .string(let text, let positions):
            var escape: Unicode.Scalar?
            if current.isKeyword("escape") {
                _ = advance()
                let escapeToken = advance()
                guard case .string(let escapeText, _) = escapeToken.kind else {
                    throw error("expected a string literal after ESCAPE, found \(escapeToken.quoted)", at: escapeToken.position)
                }
                let escapeScalars = Array(escapeText.unicodeScalars)
                guard escapeScalars.count == 1 else {
                    throw error("ESCAPE needs exactly one character, found \(escapeScalars.count)", at: escapeToken.position)
                }
                escape = escapeScalars[0]
            }
            do {
                pattern = try LikePattern(text, escape: escape)
            } catch {
                let offset = error.scalarOffset
                let position = offset < positions.count ? positions[offset] : patternToken.position
                throw self.error(error.message, at: position)
            }
        case .identifier(_, let folded) where folded == "null":
            pattern = nil
        default:
            throw error("LIKE pattern must be a string literal, found \(patternToken.quoted)", at: patternToken.position)
        }
        return try node(.like(lhs, pattern: pattern, negated: negated), at: lhs.position, children: [lhs])
    }

    // MARK: - Values

    private mutating func parseSum() throws(WhereClauseError) -> WhereExpression {
        let first = try parseProduct()
        var steps: [WhereArithmeticStep] = []
        while true {
            let op: WhereArithmeticOperator
            if current.isSymbol(.plus) { op = .add }
            else if current.isSymbol(.minus) { op = .subtract }
            else { break }
            _ = advance()
            steps.append(WhereArithmeticStep(op: op, operand: try parseProduct()))
        }
        return try chain(first, steps)
    }

    private mutating func parseProduct() throws(WhereClauseError) -> WhereExpression {
        let first = try parseUnary()
        var steps: [WhereArithmeticStep] = []
        while true {
            let op: WhereArithmeticOperator
            if current.isSymbol(.star) { op = .multiply }
            else if current.isSymbol(.slash) { op = .divide }
            else { break }
            _ = advance()
            steps.append(WhereArithmeticStep(op: op, operand: try parseUnary()))
        }
        return try chain(first, steps)
    }

    /// One flat node for a chain of one precedence level: `a + 1 + 1 …` is
    /// as deep as its deepest term, however long it is.
    private func chain(_ first: WhereExpression, _ steps: [WhereArithmeticStep]) throws(WhereClauseError) -> WhereExpression {
        if steps.isEmpty { return first }
        return try node(.arithmetic(first, steps), at: first.position, children: [first] + steps.map(\.operand))
    }

    private mutating func parseUnary() throws(WhereClauseError) -> WhereExpression {
        let sign = current
        guard sign.isSymbol(.minus) || sign.isSymbol(.plus) else { return try parsePrimary() }
        _ = advance()
        try enter(at: sign.position)
        let operand = try parseUnary()
        leave()
        let kind: WhereExpression.Kind = sign.isSymbol(.minus) ? .negate(operand) : .unaryPlus(operand)
        return try node(kind, at: sign.position, children: [operand])
    }

    private mutating func parsePrimary() throws(WhereClauseError) -> WhereExpression {
        let token = current
        switch token.kind {
        case .integer(let value):
            _ = advance()
            return leaf(.integer(value), at: token.position)
        case .decimal(let value):
            _ = advance()
            return leaf(.decimal(value), at: token.position)
        case .string(let value, _):
            _ = advance()
            return leaf(.string(value), at: token.position)
        case .quotedIdentifier(let name):
            _ = advance()
            fieldReferences.append(WhereFieldReference(name: name, position: token.position))
            return leaf(.field(name: name), at: token.position)
        case .identifier(let name, let folded):
            if folded == "null" {
                _ = advance()
                return leaf(.null, at: token.position)
            }
            if whereReservedWords.contains(folded) { break }
            if folded == "date" || folded == "timestamp", case .string(let text, _) = peek(1).kind {
                _ = advance()
                let literal = advance()
                do {
                    let ms = try DateLiteral.milliseconds(from: text)
                    return leaf(.date(milliseconds: ms), at: token.position)
                } catch {
                    // Point at the offending part inside the quotes (or at the closing quote).
                    var position = literal.position + literal.text.unicodeScalars.count - 1
                    if case .string(_, let positions) = literal.kind, error.offset < positions.count {
                        position = positions[error.offset]
                    }
                    let word = folded == "date" ? "date" : "timestamp"
                    throw self.error("invalid \(word) literal \(literal.text): \(error.message)", at: position)
                }
            }
            if peek(1).isSymbol(.leftParen) {
                if let function = aggregateFunctions.first(where: { Schema.fold($0) == folded }) {
                    return try parseAggregate(function: function)
                }
                return try parseFunction(name: name, folded: folded)
            }
            _ = advance()
            fieldReferences.append(WhereFieldReference(name: name, position: token.position))
            return leaf(.field(name: name), at: token.position)
        case .symbol(.leftParen):
            let open = advance()
            try enter(at: open.position)
            let inner = try parseOr()
            leave()
            guard current.isSymbol(.rightParen) else {
                throw error("expected ')' to close '(' opened at \(open.position)", at: current.position)
            }
            _ = advance()
            return WhereExpression(kind: inner.kind, position: open.position, height: inner.height)
        default:
            break
        }
        throw missingOperand()
    }

    private func missingOperand() -> WhereClauseError {
        let token = current
        if index > 0 {
            let previous = tokens[index - 1]
            return error("expected an operand after '\(previous.text)', found \(token.quoted)", at: token.position)
        }
        return error("expected an operand, found \(token.quoted)", at: token.position)
    }

    private mutating func parseFunction(name: String, folded: String) throws(WhereClauseError) -> WhereExpression {
        let nameToken = advance()
        guard let function = WhereFunction(folded: folded) else {
            let hint = aggregateFunctions.isEmpty ? "" : " (aggregates: \(aggregateFunctions.joined(separator: ", ")))"
            throw error("unknown function '\(name)'\(hint)", at: nameToken.position)
        }
        let open = advance() // '('
        if current.isSymbol(.rightParen) {
            throw error("\(function.rawValue) expects 1 argument, found none", at: current.position)
        }
        try enter(at: open.position)
        let argument = try parseOr()
        if current.isSymbol(.comma) {
            let extra = peek(1)
            throw error("\(function.rawValue) expects 1 argument, found more", at: extra.position)
        }
        leave()
        guard current.isSymbol(.rightParen) else {
            throw error("expected ')' to close '(' opened at \(open.position)", at: current.position)
        }
        _ = advance()
        return try node(.function(function, argument), at: nameToken.position, children: [argument])
    }

    /// `FUNCTION '(' ( '*' | field | "quoted field" ) ')'`, read as the
    /// synthetic field ``WhereAggregateCall/fieldName``.
    private mutating func parseAggregate(function: String) throws(WhereClauseError) -> WhereExpression {
        let nameToken = advance()
        let open = advance() // '('
        let argumentToken = advance()
        var argument: String?
        switch argumentToken.kind {
        case .symbol(.star):
            argument = nil
        case .quotedIdentifier(let name):
            argument = name
        case .identifier(let name, let folded) where !whereReservedWords.contains(folded):
            if folded == "distinct", !current.isSymbol(.rightParen) {
                throw error("DISTINCT is not supported in aggregates", at: argumentToken.position)
            }
            argument = name
        default:
            throw error("\(function) expects a field name or '*', found \(argumentToken.quoted)", at: argumentToken.position)
        }
        guard current.isSymbol(.rightParen) else {
            if current.isSymbol(.comma) {
                throw error("\(function) expects 1 argument, found more", at: peek(1).position)
            }
            throw error("expected ')' to close '(' opened at \(open.position)", at: current.position)
        }
        _ = advance()
        let call = WhereAggregateCall(function: function, argument: argument, position: nameToken.position)
        aggregateCalls.append(call)
        return leaf(.field(name: call.fieldName), at: nameToken.position)
    }
}
