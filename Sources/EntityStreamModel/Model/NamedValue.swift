/// A name and a typed value: a group-by field or a statistic of a
/// statistics record, a band of a raster cell. A plain value type.
public struct NamedValue: Sendable, Hashable {
    public var name: String
    public var value: AttributeValue

    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }
}

extension AttributeValue {
    /// The value as every JSON line writes it: a date as its epoch
    /// milliseconds, a non-finite double as null (JSON has no such numbers).
    public var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .double(let number): return number.isFinite ? .double(number) : .null
        case .string(let text): return .string(text)
        case .date(let milliseconds): return .int(milliseconds)
        }
    }
}

extension JSONObject {
    /// `{name: value, …}` of `values`, in order (``AttributeValue/jsonValue``).
    public init(_ values: [NamedValue]) {
        self.init()
        for item in values { append(key: item.name, value: item.value.jsonValue) }
    }
}
