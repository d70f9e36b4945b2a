/// The result of evaluating a SQL condition: SQL's three-valued logic.
///
/// `unknown` arises whenever NULL (or an incompatible runtime comparison)
/// takes part in a condition. The connectives follow Kleene's strong
/// three-valued logic exactly as SQL-92 defines them:
/// `false AND unknown = false`, `true OR unknown = true`,
/// `NOT unknown = unknown`. A `WHERE` clause keeps a row only when its
/// condition is ``true``; `unknown` excludes it like `false` does.
/// A plain value type; `Sendable`.
public enum SQLTruth: Sendable, Hashable {
    case `true`
    case `false`
    case unknown

    /// `.true` for `true`, `.false` for `false`.
    @inlinable public init(_ value: Bool) {
        self = value ? .true : .false
    }

    /// Kleene conjunction (`AND`).
    @inlinable public static func && (lhs: SQLTruth, rhs: SQLTruth) -> SQLTruth {
        switch (lhs, rhs) {
        case (.false, _), (_, .false): return .false
        case (.true, .true): return .true
        default: return .unknown
        }
    }

    /// Kleene disjunction (`OR`).
    @inlinable public static func || (lhs: SQLTruth, rhs: SQLTruth) -> SQLTruth {
        switch (lhs, rhs) {
        case (.true, _), (_, .true): return .true
        case (.false, .false): return .false
        default: return .unknown
        }
    }

    /// Kleene negation (`NOT`): swaps true and false, keeps unknown.
    @inlinable public static prefix func ! (operand: SQLTruth) -> SQLTruth {
        switch operand {
        case .true: return .false
        case .false: return .true
        case .unknown: return .unknown
        }
    }
}
