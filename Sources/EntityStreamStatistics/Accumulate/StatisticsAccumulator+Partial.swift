import EntityStreamModel

/// An accumulator's state as JSON, so accumulators on other machines (the
/// partitioned consumers of a JetStream stream) can be merged by one asker
/// with ``StatisticsAccumulator/merge(_:)``: counts and integer sums exactly
/// (integer sums as decimal text, 128 bits), double sums as their two
/// compensated parts, moments as count, mean and M2 (Chan et al.'s merge),
/// extremes per value kind. Doubles are written with Swift's shortest
/// round-tripping text, so a partial read back is bit for bit the
/// accumulator that wrote it.
extension StatisticsAccumulator {
    /// The groups and their summaries (``init(plan:partial:)`` reads it back).
    public func partial() -> JSONValue {
        var groups: [JSONValue] = []
        let width = groupFields.count
        let count = inputs.count
        for group in 0..<groupCount {
            let values = (0..<width).map { groupValues[group * width + $0].partialJSON }
            let fields = (0..<count).map { summaries[group * count + $0].partialJSON }
            groups.append(.object(JSONObject([("values", .array(values)), ("rows", .int(rowCounts[group])), ("fields", .array(fields))])))
        }
        return .object(JSONObject([("rowCount", .int(Int64(rowCount))), ("ignoredValues", .int(Int64(ignoredValueCount))),
                                   ("rowsOverGroupLimit", .int(Int64(rowsOverGroupLimit))), ("groups", .array(groups))]))
    }

    /// An accumulator of `plan` holding what `partial` (written by
    /// ``partial()`` of an accumulator of an equal plan) holds; throws on
    /// anything else, naming what is wrong.
    public init(plan: StatisticsPlan, partial: JSONValue, maximumGroups: Int = StatisticsLimits.defaultMaximumGroups) throws(StatisticsPartialError) {
        var accumulator = plan.makeAccumulator(maximumGroups: maximumGroups)
        guard let object = partial.objectValue, let groups = object["groups"]?.arrayValue,
              let rows = object["rowCount"]?.intValue, let ignored = object["ignoredValues"]?.intValue,
              let over = object["rowsOverGroupLimit"]?.intValue else { throw .notAPartial }
        let width = accumulator.groupFields.count
        let count = accumulator.inputs.count
        var source = plan.makeAccumulator(maximumGroups: Swift.max(groups.count, 1))
        source.rowCounts.removeAll()
        source.summaries.removeAll()
        source.groupValues.removeAll()
        for group in groups {
            guard let members = group.objectValue, let values = members["values"]?.arrayValue, values.count == width,
                  let rowCount = members["rows"]?.intValue, let fields = members["fields"]?.arrayValue, fields.count == count else {
                throw .groupShape(groupFields: width, statistics: count)
            }
            for value in values { source.groupValues.append(try AttributeValue(partialJSON: value)) }
            source.rowCounts.append(rowCount)
            for field in fields { source.summaries.append(try FieldSummary(partialJSON: field)) }
        }
        if width == 0 && groups.isEmpty {
            source.rowCounts = [0]
            source.summaries = Array(repeating: FieldSummary(), count: count)
        }
        source.rowCount = Int(rows)
        source.ignoredValueCount = Int(ignored)
        source.rowsOverGroupLimit = Int(over)
        accumulator.merge(source)
        self = accumulator
    }
}

/// A statistics partial that cannot be read, by what is wrong in it.
public enum StatisticsPartialError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is not an object with groups, rowCount, ignoredValues and rowsOverGroupLimit.
    case notAPartial
    /// A group's values or fields do not match the request's group fields and statistics.
    case groupShape(groupFields: Int, statistics: Int)
    /// A group value is not a one-member tagged object.
    case untaggedValue
    /// A group value's tag is none of i, d, s, t, b.
    case unknownTag
    /// A field summary's `member` (n, intSum, doubleSum, moments, int, double, date, string) is missing or malformed.
    case fieldSummary(member: String)

    public var description: String {
        switch self {
        case .notAPartial: return "not a statistics partial"
        case .groupShape(let groupFields, let statistics):
            return "a group does not match the request's \(groupFields) group fields and \(statistics) statistics"
        case .untaggedValue: return "a group value is not tagged"
        case .unknownTag: return "a group value has an unknown tag"
        case .fieldSummary(let member): return "field summary: bad \(member)"
        }
    }
}

extension AttributeValue {
    /// Tagged, so that kinds survive: `{"i":5}`, `{"d":"0.1"}`, `{"s":"x"}`, `{"t":ms}`, `{"b":true}`, null.
    var partialJSON: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return .object(JSONObject([("b", .bool(flag))]))
        case .int(let number): return .object(JSONObject([("i", .int(number))]))
        case .double(let number): return .object(JSONObject([("d", .string(String(number)))]))
        case .string(let text): return .object(JSONObject([("s", .string(text))]))
        case .date(let milliseconds): return .object(JSONObject([("t", .int(milliseconds))]))
        }
    }

    init(partialJSON value: JSONValue) throws(StatisticsPartialError) {
        if case .null = value { self = .null; return }
        guard let object = value.objectValue, object.count == 1 else { throw .untaggedValue }
        if let flag = object["b"]?.boolValue { self = .bool(flag) }
        else if let number = object["i"]?.intValue { self = .int(number) }
        else if let text = object["d"]?.stringValue, let number = Double(text) { self = .double(number) }
        else if let text = object["s"]?.stringValue { self = .string(text) }
        else if let milliseconds = object["t"]?.intValue { self = .date(milliseconds: milliseconds) }
        else { throw .unknownTag }
    }
}

extension FieldSummary {
    var partialJSON: JSONValue {
        func double(_ value: Double) -> JSONValue { .string(String(value)) }
        var members = JSONObject()
        members.append(key: "n", value: .array([.int(intCount), .int(doubleCount), .int(dateCount), .int(stringCount)]))
        members.append(key: "intSum", value: .string(String(intSum)))
        members.append(key: "doubleSum", value: .array([double(doubleSum.sum), double(doubleSum.compensation)]))
        members.append(key: "moments", value: .array([.int(moments.count), double(moments.shift), double(moments.s1.hi), double(moments.s1.lo),
                                                      double(moments.s2.hi), double(moments.s2.lo)]))
        members.append(key: "int", value: .array([.int(intMin), .int(intMax)]))
        members.append(key: "double", value: .array([double(doubleMin), double(doubleMax)]))
        members.append(key: "date", value: .array([.int(dateMin), .int(dateMax)]))
        members.append(key: "string", value: .array([stringMin.map { .string($0) } ?? .null, stringMax.map { .string($0) } ?? .null]))
        return .object(members)
    }

    init(partialJSON value: JSONValue) throws(StatisticsPartialError) {
        func doubles(_ name: String, _ count: Int) throws(StatisticsPartialError) -> [Double] {
            guard let array = value.objectValue?[name]?.arrayValue, array.count == count else { throw .fieldSummary(member: name) }
            var result: [Double] = []
            for item in array {
                guard let text = item.stringValue, let number = Double(text) else { throw .fieldSummary(member: name) }
                result.append(number)
            }
            return result
        }
        func ints(_ name: String, _ count: Int) throws(StatisticsPartialError) -> [Int64] {
            guard let array = value.objectValue?[name]?.arrayValue, array.count == count else { throw .fieldSummary(member: name) }
            var result: [Int64] = []
            for item in array {
                guard let number = item.intValue else { throw .fieldSummary(member: name) }
                result.append(number)
            }
            return result
        }
        self.init()
        let counts = try ints("n", 4)
        (intCount, doubleCount, dateCount, stringCount) = (counts[0], counts[1], counts[2], counts[3])
        guard let sumText = value.objectValue?["intSum"]?.stringValue, let sum = Int128(sumText) else {
            throw .fieldSummary(member: "intSum")
        }
        intSum = sum
        let parts = try doubles("doubleSum", 2)
        doubleSum.sum = parts[0]
        doubleSum.compensation = parts[1]
        guard let momentArray = value.objectValue?["moments"]?.arrayValue, momentArray.count == 6,
              let momentCount = momentArray[0].intValue, momentCount >= 0 else { throw .fieldSummary(member: "moments") }
        var momentParts: [Double] = []
        for item in momentArray.dropFirst() {
            guard let text = item.stringValue, let number = Double(text) else { throw .fieldSummary(member: "moments") }
            momentParts.append(number)
        }
        moments.count = momentCount
        moments.shift = momentParts[0]
        moments.s1 = DoubleDouble(hi: momentParts[1], lo: momentParts[2])
        moments.s2 = DoubleDouble(hi: momentParts[3], lo: momentParts[4])
        let integers = try ints("int", 2)
        (intMin, intMax) = (integers[0], integers[1])
        let extremes = try doubles("double", 2)
        (doubleMin, doubleMax) = (extremes[0], extremes[1])
        let dates = try ints("date", 2)
        (dateMin, dateMax) = (dates[0], dates[1])
        guard let strings = value.objectValue?["string"]?.arrayValue, strings.count == 2 else { throw .fieldSummary(member: "string") }
        stringMin = strings[0].stringValue
        stringMax = strings[1].stringValue
    }
}
