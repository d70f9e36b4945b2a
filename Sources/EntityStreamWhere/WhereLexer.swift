import EntityStreamModel
/// Splits where-clause text into ``WhereToken``s.
///
/// Works on Unicode scalars so every position is a 1-based scalar offset.
/// Throws ``WhereClauseError`` for unterminated strings or quoted names,
/// malformed numbers (`1.2.3`, `1e`, `12abc`) and characters that belong to
/// no token. The result always ends with one `.end` token.
struct WhereLexer {
    let scalars: [Unicode.Scalar]
    private var index = 0

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    static func tokenize(_ scalars: [Unicode.Scalar]) throws(WhereClauseError) -> [WhereToken] {
        var lexer = WhereLexer(scalars: scalars)
        var tokens: [WhereToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.isEnd { return tokens }
        }
    }

    private func error(_ message: String, at position: Int) -> WhereClauseError {
        WhereClauseError(position: position, message: message, in: scalars)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    private func text(_ start: Int, _ end: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<end]))
    }

    static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }

    static func isIdentifierStart(_ s: Unicode.Scalar) -> Bool {
        if s.value < 128 {
            return (s.value >= 65 && s.value <= 90) || (s.value >= 97 && s.value <= 122) || s == "_"
        }
        return s.properties.isAlphabetic
    }

    static func isIdentifierContinue(_ s: Unicode.Scalar) -> Bool {
        isIdentifierStart(s) || isDigit(s) || (s.value >= 128 && s.properties.numericType != nil)
    }

    private mutating func next() throws(WhereClauseError) -> WhereToken {
        while let s = peek(), s.properties.isWhitespace { index += 1 }
        let start = index
        let position = start + 1
        guard let s = peek() else {
            return WhereToken(kind: .end, position: position, text: "")
        }
        if Self.isDigit(s) || (s == "." && peek(1).map(Self.isDigit) == true) {
            return try number()
        }
        if Self.isIdentifierStart(s) {
            index += 1
            while let c = peek(), Self.isIdentifierContinue(c) { index += 1 }
            let name = text(start, index)
            return WhereToken(kind: .identifier(name: name, folded: Schema.fold(name)),
                              position: position, text: name)
        }
        switch s {
        case "'":
            return try stringLiteral()
        case "\"":
            return try quotedIdentifier()
        default:
            break
        }
        index += 1
        let symbol: WhereSymbol
        switch s {
        case "=": symbol = .equal
        case "<":
            if peek() == ">" { index += 1; symbol = .notEqual }
            else if peek() == "=" { index += 1; symbol = .lessOrEqual }
            else { symbol = .less }
        case ">":
            if peek() == "=" { index += 1; symbol = .greaterOrEqual } else { symbol = .greater }
        case "!":
            guard peek() == "=" else { throw error("unexpected character '!' (did you mean '!=' or NOT?)", at: position) }
            index += 1
            symbol = .notEqual
        case "+": symbol = .plus
        case "-": symbol = .minus
        case "*": symbol = .star
        case "/": symbol = .slash
        case "(": symbol = .leftParen
        case ")": symbol = .rightParen
        case ",": symbol = .comma
        default:
            throw error("unexpected character '\(String(Character(s)))'", at: position)
        }
        return WhereToken(kind: .symbol(symbol), position: position, text: text(start, index))
    }

    /// `digits ['.' digits*] [e [+-] digits]` or `'.' digits [exponent]`.
    private mutating func number() throws(WhereClauseError) -> WhereToken {
        let start = index
        var isInteger = true
        while let c = peek(), Self.isDigit(c) { index += 1 }
        var wellFormed = true
        if peek() == "." {
            isInteger = false
            index += 1
            while let c = peek(), Self.isDigit(c) { index += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            isInteger = false
            index += 1
            if let sign = peek(), sign == "+" || sign == "-" { index += 1 }
            var digits = 0
            while let c = peek(), Self.isDigit(c) { index += 1; digits += 1 }
            if digits == 0 { wellFormed = false }
        }
        // A number must not run straight into letters, digits or another '.'.
        if let c = peek(), c == "." || Self.isIdentifierContinue(c) { wellFormed = false }
        if !wellFormed {
            while let c = peek(), c == "." || Self.isIdentifierContinue(c)
                || ((c == "+" || c == "-") && index > start && (scalars[index - 1] == "e" || scalars[index - 1] == "E")) {
                index += 1
            }
            throw error("malformed number '\(text(start, index))'", at: start + 1)
        }
        let spelling = text(start, index)
        if isInteger, let value = Int64(spelling) {
            return WhereToken(kind: .integer(value), position: start + 1, text: spelling)
        }
        guard let value = Double(spelling), value.isFinite else {
            throw error("number '\(spelling)' is out of range", at: start + 1)
        }
        return WhereToken(kind: .decimal(value), position: start + 1, text: spelling)
    }

    private mutating func stringLiteral() throws(WhereClauseError) -> WhereToken {
        let start = index
        index += 1
        var content = String.UnicodeScalarView()
        var positions: [Int] = []
        while true {
            guard let c = peek() else {
                throw error("unterminated string literal", at: start + 1)
            }
            if c == "'" {
                if peek(1) == "'" {
                    content.append("'")
                    positions.append(index + 1)
                    index += 2
                    continue
                }
                index += 1
                break
            }
            content.append(c)
            positions.append(index + 1)
            index += 1
        }
        return WhereToken(kind: .string(String(content), scalarPositions: positions),
                          position: start + 1, text: text(start, index))
    }

    private mutating func quotedIdentifier() throws(WhereClauseError) -> WhereToken {
        let start = index
        index += 1
        var content = String.UnicodeScalarView()
        while true {
            guard let c = peek() else {
                throw error("unterminated quoted identifier", at: start + 1)
            }
            if c == "\"" {
                if peek(1) == "\"" {
                    content.append("\"")
                    index += 2
                    continue
                }
                index += 1
                break
            }
            content.append(c)
            index += 1
        }
        if content.isEmpty {
            throw error("empty quoted identifier", at: start + 1)
        }
        return WhereToken(kind: .quotedIdentifier(String(content)), position: start + 1, text: text(start, index))
    }
}
