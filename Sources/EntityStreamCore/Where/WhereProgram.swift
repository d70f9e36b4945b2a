/// The compiled, evaluation-ready form of a where clause: a tree of value
/// types with field indices resolved, literals pre-converted (numbers to
/// `Int64`/`Double`, dates to epoch ms, LIKE patterns precompiled) and
/// constant sub-trees folded. Built only by ``WhereCompiler``; evaluated by
/// the extensions in `WhereEvaluator.swift`.
indirect enum WhereCondition: Sendable, Hashable {
    case constant(SQLTruth)
    case and([WhereCondition])
    case or([WhereCondition])
    case not(WhereCondition)
    case compare(WhereOperand, WhereComparisonOperator, WhereOperand)
    /// `field op literal`, the most common shape, without operand dispatch.
    case compareField(Int, WhereComparisonOperator, AttributeValue)
    case inList(WhereOperand, [WhereOperand], negated: Bool)
    /// `field [NOT] IN (literal, …)`; `hasNull` when a NULL literal is listed.
    case fieldInLiterals(Int, [AttributeValue], hasNull: Bool, negated: Bool)
    case between(WhereOperand, WhereOperand, WhereOperand, negated: Bool)
    case like(WhereOperand, LikePattern, negated: Bool)
    case isNull(WhereOperand, negated: Bool)
}

/// A compiled value expression (see ``WhereCondition``).
indirect enum WhereOperand: Sendable, Hashable {
    case field(Int)
    case literal(AttributeValue)
    case negate(WhereOperand)
    case arithmetic(WhereArithmeticOperator, WhereOperand, WhereOperand)
    case upper(WhereOperand)
    case lower(WhereOperand)
    case charLength(WhereOperand)
    case abs(WhereOperand)
}
