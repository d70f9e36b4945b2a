import EntityStreamModel

/// A name and a value: one group-by field or one statistic of a
/// ``StatisticsRecord``. A plain value type.
public struct NamedValue: Sendable, Hashable {
    public var name: String
    public var value: AttributeValue

    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }
}
