import EntityStreamModel
import EntityStreamWhere

/// When two group-by values fall in one group, and a hash consistent with
/// that, so plain rows can be grouped without building a key per row.
///
/// SQL's GROUP BY rules: all NULLs (and NaN, which SQLite stores as NULL)
/// form one group; numbers (integers, doubles, booleans as 0/1, dates as
/// epoch ms) are one group when equal by value, as the where engine
/// compares them (`1` and `1.0`, `0.0` and `-0.0`); strings when their
/// Unicode scalars are equal (``ExactText``: `"é"` precomposed and
/// decomposed are two groups, as in SQLite, DuckDB and ArcGIS), which is
/// exactly when the entity store interns them to one id, so plain and
/// identity-keyed rows always form the same groups.
/// Ordering (``compare(_:_:)``) is the where engine's: binary UTF-8.
@usableFromInline
enum GroupValueRules {
    /// The value a group stores for display: NaN becomes NULL.
    @inlinable
    static func representative(_ value: AttributeValue) -> AttributeValue {
        if case .double(let x) = value, x.isNaN { return .null }
        return value
    }

    @usableFromInline
    static func isNullish(_ value: AttributeValue) -> Bool {
        switch value {
        case .null: return true
        case .double(let x): return x.isNaN
        default: return false
        }
    }

    /// True when `a` and `b` belong to one group.
    @usableFromInline
    static func sameGroup(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        let aNull = isNullish(a), bNull = isNullish(b)
        if aNull || bNull { return aNull && bNull }
        if case .string(let x) = a {
            if case .string(let y) = b { return ExactText.equal(x, y) }
            return false
        }
        return WhereValueOrder.compare(a, b) == .equal
    }

    /// Feeds `value` to `hasher` so that values in one group hash alike.
    @usableFromInline
    static func hash(_ value: AttributeValue, into hasher: inout Hasher) {
        switch value {
        case .null:
            hasher.combine(0 as UInt8)
        case .string(let text):
            hasher.combine(1 as UInt8)
            ExactText.hash(text, into: &hasher)
        case .int(let i), .date(let i):
            hasher.combine(2 as UInt8)
            hasher.combine(i)
        case .bool(let flag):
            hasher.combine(2 as UInt8)
            hasher.combine(Int64(flag ? 1 : 0))
        case .double(let x):
            if x.isNaN {
                hasher.combine(0 as UInt8)
            } else if x.rounded(.towardZero) == x && x >= -0x1p63 && x < 0x1p63 {
                hasher.combine(2 as UInt8)
                hasher.combine(Int64(x))
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(x.bitPattern)
            }
        }
    }

    /// SQL sort order of values: NULL first, then numbers by value, then
    /// strings in binary UTF-8 order. Returns -1, 0 or 1.
    static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        if ra == 0 { return 0 }
        switch WhereValueOrder.compare(a, b) {
        case .less?: return -1
        case .greater?: return 1
        default: return 0
        }
    }

    private static func rank(_ value: AttributeValue) -> Int {
        switch value {
        case .null: return 0
        case .double(let x): return x.isNaN ? 0 : 1
        case .int, .bool, .date: return 1
        case .string: return 2
        }
    }
}
