/// What one resolved order-by term sorts on: a group-by field (by position
/// in the group key) or a computed statistic (by output index), and in
/// which direction. Built by ``StatisticsPlan``; a plain value type.
struct OrderKey: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case group(Int)
        case output(Int)
    }

    var source: Source
    var direction: SortDirection
}
