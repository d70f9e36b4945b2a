import EntityStreamModel
/// Evaluation of compiled where-clause trees against rows.
///
/// Conditions yield ``SQLTruth`` with SQL three-valued logic; values yield
/// ``AttributeValue`` (NULL propagates through every operator and function).
/// Evaluation never throws and never traps: incompatible runtime types make
/// a comparison `unknown` and a function or arithmetic result NULL.
extension WhereCondition {
    package func evaluate<Row: AttributeRow>(_ row: Row) -> SQLTruth {
        switch self {
        case .constant(let truth):
            return truth
        case .compareField(let field, let op, let literal):
            return WhereValueOrder.truth(WhereValueOrder.compare(row.value(at: field), literal), op)
        case .and(let items):
            var sawUnknown = false
            for item in items {
                switch item.evaluate(row) {
                case .false: return .false
                case .unknown: sawUnknown = true
                case .true: break
                }
            }
            return sawUnknown ? .unknown : .true
        case .or(let items):
            var sawUnknown = false
            for item in items {
                switch item.evaluate(row) {
                case .true: return .true
                case .unknown: sawUnknown = true
                case .false: break
                }
            }
            return sawUnknown ? .unknown : .false
        case .not(let inner):
            return !inner.evaluate(row)
        case .compare(let lhs, let op, let rhs):
            return WhereValueOrder.truth(WhereValueOrder.compare(lhs.value(row), rhs.value(row)), op)
        case .fieldInLiterals(let field, let literals, let negated):
            return literals.evaluate(row.value(at: field), negated: negated)
        case .inList(let operand, let items, let negated):
            let value = operand.value(row)
            if value.isNull { return .unknown }
            var sawUnknown = false
            for item in items {
                switch WhereValueOrder.compare(value, item.value(row)) {
                case .equal?: return negated ? .false : .true
                case nil: sawUnknown = true
                default: break
                }
            }
            if sawUnknown { return .unknown }
            return negated ? .true : .false
        case .between(let operand, let low, let high, let negated):
            let value = operand.value(row)
            let result = WhereValueOrder.truth(WhereValueOrder.compare(value, low.value(row)), .greaterOrEqual)
                && WhereValueOrder.truth(WhereValueOrder.compare(value, high.value(row)), .lessOrEqual)
            return negated ? !result : result
        case .like(let operand, let pattern, let negated):
            guard case .string(let string) = operand.value(row) else { return .unknown }
            return SQLTruth(pattern.matches(string) != negated)
        case .isNull(let operand, let negated):
            return SQLTruth(operand.value(row).isNull != negated)
        }
    }
}

extension WhereOperand {
    func value<Row: AttributeRow>(_ row: Row) -> AttributeValue {
        switch self {
        case .field(let index):
            return row.value(at: index)
        case .literal(let value):
            return value
        case .negate(let inner):
            return WhereValueOrder.negate(inner.value(row))
        case .arithmetic(let first, let steps):
            var result = first.value(row)
            for step in steps {
                if result.isNull { return .null }
                result = WhereValueOrder.arithmetic(step.op, result, step.operand.value(row))
            }
            return result
        case .upper(let inner):
            guard case .string(let s) = inner.value(row) else { return .null }
            return .string(s.uppercased())
        case .lower(let inner):
            guard case .string(let s) = inner.value(row) else { return .null }
            return .string(s.lowercased())
        case .charLength(let inner):
            guard case .string(let s) = inner.value(row) else { return .null }
            return .int(Int64(s.unicodeScalars.count))
        case .abs(let inner):
            return WhereValueOrder.absolute(inner.value(row))
        }
    }
}
