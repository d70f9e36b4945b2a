import EntityStreamModel
/// A total order on ``AttributeValue``s for sorting results (ORDER BY):
/// NULL first (as SQLite and SQL Server sort ascending), then numbers —
/// integers, doubles, dates and booleans compared numerically and exactly
/// as the where engine compares them, NaN after every other number — then
/// strings in binary UTF-8 order. Pure functions.
public enum AttributeValueOrdering {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    public static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        guard rankA == 1 || rankA == 3 else { return 0 }
        switch WhereValueOrder.compare(a, b) {
        case .less?: return -1
        case .greater?: return 1
        case .equal?, nil: return 0
        }
    }

    /// True when `a` sorts strictly before `b`.
    public static func areInIncreasingOrder(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        compare(a, b) < 0
    }

    /// 0 null, 1 number, 2 NaN, 3 string.
    private static func rank(_ value: AttributeValue) -> Int {
        switch value {
        case .null: return 0
        case .double(let number) where number.isNaN: return 2
        case .int, .double, .date, .bool: return 1
        case .string: return 3
        }
    }
}
