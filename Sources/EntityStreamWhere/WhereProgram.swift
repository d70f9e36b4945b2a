import EntityStreamModel
/// The compiled, evaluation-ready form of a where clause: a tree of value
/// types with field indices resolved, literals pre-converted (numbers to
/// `Int64`/`Double`, dates to epoch ms, LIKE patterns precompiled) and
/// constant sub-trees folded. Built only by ``WhereCompiler``; evaluated by
/// the extensions in `WhereEvaluator.swift`.
package indirect enum WhereCondition: Sendable, Hashable {
    case constant(SQLTruth)
    case and([WhereCondition])
    case or([WhereCondition])
    case not(WhereCondition)
    case compare(WhereOperand, WhereComparisonOperator, WhereOperand)
    /// `field op literal`, the most common shape, without operand dispatch.
    case compareField(Int, WhereComparisonOperator, AttributeValue)
    case inList(WhereOperand, [WhereOperand], negated: Bool)
    /// `field [NOT] IN (literal, …)`, looked up in O(log n).
    case fieldInLiterals(Int, WhereLiteralSet, negated: Bool)
    case between(WhereOperand, WhereOperand, WhereOperand, negated: Bool)
    case like(WhereOperand, LikePattern, negated: Bool)
    case isNull(WhereOperand, negated: Bool)
}

/// A compiled value expression (see ``WhereCondition``).
package indirect enum WhereOperand: Sendable, Hashable {
    case field(Int)
    case literal(AttributeValue)
    case negate(WhereOperand)
    /// A left-associative chain, evaluated step by step (no recursion per step).
    case arithmetic(WhereOperand, [WhereOperandStep])
    case upper(WhereOperand)
    case lower(WhereOperand)
    case charLength(WhereOperand)
    case abs(WhereOperand)
}

/// One `op operand` step of a compiled arithmetic chain.
package struct WhereOperandStep: Sendable, Hashable {
    var op: WhereArithmeticOperator
    var operand: WhereOperand
}
