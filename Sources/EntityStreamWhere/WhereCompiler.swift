import EntityStreamModel
/// Turns a parsed ``WhereExpression`` into an evaluation-ready
/// ``WhereCondition`` against a ``Schema``: resolves field names
/// (case-insensitively) to indices, checks static types, folds constant
/// sub-expressions with the runtime evaluator itself, and picks fast-path
/// node shapes. Throws ``WhereClauseError`` for unknown fields, type
/// mismatches, and values used as conditions or vice versa.
struct WhereCompiler {
    let schema: Schema
    let scalars: [Unicode.Scalar]
    /// Every field index the clause text mentions (even in folded-away branches).
    private(set) var referencedFields: Set<Int> = []

    init(schema: Schema, scalars: [Unicode.Scalar]) {
        self.schema = schema
        self.scalars = scalars
    }

    /// A compiled value with what static checking needs to know about it.
    struct TypedOperand {
        var operand: WhereOperand
        var type: WhereValueType
        /// How messages name it: `double field 'speed'`, `string 'fast'`, …
        package var description: String
        var position: Int
    }

    private func error(_ message: String, at position: Int) -> WhereClauseError {
        WhereClauseError(position: position, message: message, in: scalars)
    }

    // MARK: - Conditions

    mutating func condition(_ e: WhereExpression) throws(WhereClauseError) -> WhereCondition {
        switch e.kind {
        case .and(let items):
            var compiled: [WhereCondition] = []
            for item in items { compiled.append(try condition(item)) }
            return Self.conjunction(compiled)
        case .or(let items):
            var compiled: [WhereCondition] = []
            for item in items { compiled.append(try condition(item)) }
            return Self.disjunction(compiled)
        case .not(let inner):
            switch try condition(inner) {
            case .constant(let truth): return .constant(!truth)
            case .not(let doubled): return doubled
            case let other: return .not(other)
            }
        case .comparison(let op, let l, let r):
            let lhs = try value(l), rhs = try value(r)
            try checkComparable(lhs, rhs)
            return Self.comparison(lhs.operand, op, rhs.operand)
        case .inList(let l, let items, let negated):
            let lhs = try value(l)
            var operands: [WhereOperand] = []
            for item in items {
                let typed = try value(item)
                try checkComparable(lhs, typed)
                operands.append(typed.operand)
            }
            return Self.inList(lhs.operand, operands, negated: negated)
        case .between(let x, let low, let high, let negated):
            let operand = try value(x), lower = try value(low), upper = try value(high)
            try checkComparable(operand, lower)
            try checkComparable(operand, upper)
            return Self.fold(.between(operand.operand, lower.operand, upper.operand, negated: negated))
        case .like(let x, let pattern, let negated):
            let operand = try value(x)
            guard operand.type.isTextual else {
                throw error("LIKE needs a string operand, found \(operand.description)", at: operand.position)
            }
            guard let pattern else { return .constant(.unknown) }
            return Self.fold(.like(operand.operand, pattern, negated: negated))
        case .isNull(let x, let negated):
            let operand = try value(x)
            return Self.fold(.isNull(operand.operand, negated: negated))
        default:
            let operand = try value(e)
            throw error("expected a condition (a comparison, IN, BETWEEN, LIKE or IS NULL), found \(operand.description)",
                        at: e.position)
        }
    }

    private func checkComparable(_ lhs: TypedOperand, _ rhs: TypedOperand) throws(WhereClauseError) {
        guard lhs.type.isComparable(with: rhs.type) else {
            throw error("cannot compare \(lhs.description) with \(rhs.description)", at: rhs.position)
        }
    }

    /// Evaluates `c` at compile time when it reads no field.
    private static func fold(_ c: WhereCondition) -> WhereCondition {
        var constant = true
        switch c {
        case .between(let a, let b, let d, _): constant = a.isLiteral && b.isLiteral && d.isLiteral
        case .like(let a, _, _), .isNull(let a, _): constant = a.isLiteral
        case .compare(let a, _, let b): constant = a.isLiteral && b.isLiteral
        case .inList(let a, let items, _): constant = a.isLiteral && items.allSatisfy(\.isLiteral)
        default: constant = false
        }
        return constant ? .constant(c.evaluate(WhereNullRow())) : c
    }

    private static func comparison(_ lhs: WhereOperand, _ op: WhereComparisonOperator, _ rhs: WhereOperand) -> WhereCondition {
        if lhs.isNullLiteral || rhs.isNullLiteral { return .constant(.unknown) }
        if case .field(let index) = lhs, case .literal(let value) = rhs {
            return .compareField(index, op, value)
        }
        if case .literal(let value) = lhs, case .field(let index) = rhs {
            return .compareField(index, op.mirrored, value)
        }
        return fold(.compare(lhs, op, rhs))
    }

    private static func inList(_ lhs: WhereOperand, _ items: [WhereOperand], negated: Bool) -> WhereCondition {
        if lhs.isNullLiteral { return .constant(.unknown) }
        if case .field(let index) = lhs, items.allSatisfy(\.isLiteral) {
            var literals: [AttributeValue] = []
            literals.reserveCapacity(items.count)
            for case .literal(let value) in items { literals.append(value) }
            return .fieldInLiterals(index, WhereLiteralSet(literals), negated: negated)
        }
        return fold(.inList(lhs, items, negated: negated))
    }

    /// AND of `items`, flattened, with `true` dropped and `false` absorbing.
    private static func conjunction(_ items: [WhereCondition]) -> WhereCondition {
        var kept: [WhereCondition] = []
        var sawUnknown = false
        for item in items {
            switch item {
            case .constant(.false): return .constant(.false)
            case .constant(.true): continue
            case .constant(.unknown): sawUnknown = true
            case .and(let nested): kept.append(contentsOf: nested)
            default: kept.append(item)
            }
        }
        if sawUnknown {
            if kept.isEmpty { return .constant(.unknown) }
            kept.append(.constant(.unknown))
        }
        if kept.isEmpty { return .constant(.true) }
        return kept.count == 1 ? kept[0] : .and(kept)
    }

    /// OR of `items`, flattened, with `false` dropped and `true` absorbing.
    private static func disjunction(_ items: [WhereCondition]) -> WhereCondition {
        var kept: [WhereCondition] = []
        var sawUnknown = false
        for item in items {
            switch item {
            case .constant(.true): return .constant(.true)
            case .constant(.false): continue
            case .constant(.unknown): sawUnknown = true
            case .or(let nested): kept.append(contentsOf: nested)
            default: kept.append(item)
            }
        }
        if sawUnknown {
            if kept.isEmpty { return .constant(.unknown) }
            kept.append(.constant(.unknown))
        }
        if kept.isEmpty { return .constant(.false) }
        return kept.count == 1 ? kept[0] : .or(kept)
    }

    // MARK: - Values

    mutating func value(_ e: WhereExpression) throws(WhereClauseError) -> TypedOperand {
        switch e.kind {
        case .field(let name):
            guard let index = schema.index(ofField: name) else {
                let folded = Schema.fold(name)
                let hint = folded == "true" || folded == "false"
                    ? " (boolean literals are not supported; compare with 1 or 0)" : ""
                throw error("unknown field '\(name)'\(hint)", at: e.position)
            }
            referencedFields.insert(index)
            let field = schema.fields[index]
            return TypedOperand(operand: .field(index), type: WhereValueType(field.type),
                                description: "\(field.type.word) field '\(field.name)'",
                                position: e.position)
        case .integer(let v):
            return TypedOperand(operand: .literal(.int(v)), type: .number, description: "number \(v)", position: e.position)
        case .decimal(let v):
            return TypedOperand(operand: .literal(.double(v)), type: .number, description: "number \(v)", position: e.position)
        case .string(let s):
            return TypedOperand(operand: .literal(.string(s)), type: .string,
                                description: "string '\(quoteEscaped(s))'", position: e.position)
        case .null:
            return TypedOperand(operand: .literal(.null), type: .null, description: "NULL", position: e.position)
        case .date(let ms):
            return TypedOperand(operand: .literal(.date(milliseconds: ms)), type: .date,
                                description: "date literal", position: e.position)
        case .negate(let inner):
            let operand = try numeric(inner, "'-' needs a numeric operand")
            return numericResult(.negate(operand.operand), from: [operand], at: e.position)
        case .unaryPlus(let inner):
            let operand = try numeric(inner, "'+' needs a numeric operand")
            return numericResult(operand.operand, from: [operand], at: e.position)
        case .arithmetic(let first, let steps):
            guard let firstOp = steps.first?.op else { return try value(first) }
            let head = try numeric(first, "'\(firstOp.rawValue)' needs numeric operands")
            var operands = [head]
            var compiled: [WhereOperandStep] = []
            compiled.reserveCapacity(steps.count)
            for step in steps {
                let operand = try numeric(step.operand, "'\(step.op.rawValue)' needs numeric operands")
                operands.append(operand)
                compiled.append(WhereOperandStep(op: step.op, operand: operand.operand))
            }
            return numericResult(Self.foldingLeadingLiterals(head.operand, compiled), from: operands, at: e.position)
        case .function(let function, let argument):
            let name = function.rawValue
            switch function {
            case .abs:
                let operand = try numeric(argument, "\(name) needs a numeric argument")
                return numericResult(.abs(operand.operand), from: [operand], at: e.position)
            case .upper, .lower, .charLength:
                let operand = try value(argument)
                guard operand.type.isTextual else {
                    throw error("\(name) needs a string argument, found \(operand.description)", at: operand.position)
                }
                let node: WhereOperand
                switch function {
                case .upper: node = .upper(operand.operand)
                case .lower: node = .lower(operand.operand)
                default: node = .charLength(operand.operand)
                }
                let type: WhereValueType = operand.type == .null ? .null : (function == .charLength ? .number : .string)
                let description = function == .charLength ? "numeric expression" : "string expression"
                return TypedOperand(operand: Self.fold(node), type: type, description: description, position: e.position)
            }
        default:
            throw error("expected a value, found a condition", at: e.position)
        }
    }

    private mutating func numeric(_ e: WhereExpression, _ message: String) throws(WhereClauseError) -> TypedOperand {
        let operand = try value(e)
        guard operand.type.isNumeric else {
            throw error("\(message), found \(operand.description)", at: operand.position)
        }
        return operand
    }

    private func numericResult(_ node: WhereOperand, from operands: [TypedOperand], at position: Int) -> TypedOperand {
        let type: WhereValueType = operands.contains { $0.type == .null } ? .null : .number
        return TypedOperand(operand: Self.fold(node), type: type, description: "numeric expression", position: position)
    }

    /// A chain with its leading literal steps computed now (`1 + 2 + a` →
    /// `3 + a`): left to right, exactly as evaluation would.
    private static func foldingLeadingLiterals(_ first: WhereOperand, _ steps: [WhereOperandStep]) -> WhereOperand {
        guard case .literal(var value) = first else { return .arithmetic(first, steps) }
        var index = 0
        while index < steps.count, case .literal(let next) = steps[index].operand {
            value = WhereValueOrder.arithmetic(steps[index].op, value, next)
            index += 1
        }
        return index == steps.count ? .literal(value) : .arithmetic(.literal(value), Array(steps[index...]))
    }

    /// Evaluates `node` at compile time when all its children are literals.
    private static func fold(_ node: WhereOperand) -> WhereOperand {
        let constant: Bool
        switch node {
        case .field, .literal: return node
        case .negate(let a), .upper(let a), .lower(let a), .charLength(let a), .abs(let a): constant = a.isLiteral
        case .arithmetic(let first, let steps): constant = first.isLiteral && steps.allSatisfy(\.operand.isLiteral)
        }
        return constant ? .literal(node.value(WhereNullRow())) : node
    }
}

extension WhereOperand {
    var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    var isNullLiteral: Bool {
        if case .literal(.null) = self { return true }
        return false
    }
}

extension WhereComparisonOperator {
    /// The operator that gives the same result with the operands swapped.
    var mirrored: WhereComparisonOperator {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}

/// `s` with every `'` doubled, as it would be written in a string literal.
private func quoteEscaped(_ s: String) -> String {
    var result = ""
    for c in s.unicodeScalars {
        result.unicodeScalars.append(c)
        if c == "'" { result.unicodeScalars.append(c) }
    }
    return result
}
