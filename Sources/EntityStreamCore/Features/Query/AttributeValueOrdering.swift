/// The total order `orderByFields` sorts attribute values by: nulls first,
/// then numbers (ints, doubles, dates, booleans, compared numerically as the
/// where engine compares them; NaN after every other number), then strings
/// (binary UTF-8 order, case-sensitive). Descending reverses it (nulls
/// last), as SQL Server, behind ArcGIS's hosted layers, does. Stateless.
public enum AttributeValueOrdering {
    /// -1, 0 or 1 as `a` sorts before, with or after `b` (ascending).
    public static func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        let rankA = rank(a), rankB = rank(b)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch WhereValueOrder.compare(a, b) {
        case .less?: return -1
        case .greater?: return 1
        case .equal?: return 0
        case nil: return 0   // two nulls, or two NaNs
        }
    }

    /// 0 null, 1 number, 2 NaN, 3 string.
    private static func rank(_ value: AttributeValue) -> Int {
        switch value {
        case .null: return 0
        case .double(let d) where d.isNaN: return 2
        case .int, .double, .date, .bool: return 1
        case .string: return 3
        }
    }
}
