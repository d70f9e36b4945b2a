import EntityStreamModel

/// The tests' independent oracle: a naive GROUP BY written from the SQL
/// definitions, sharing no code with the engine — groups in a dictionary,
/// two-pass mean and variance, plain sums, min/max by explicit comparison
/// (strings by their UTF-8 byte arrays), groups sorted by their values with
/// NULL first.
struct NaiveGroupBy {
    enum Kind { case count, sum, avg, stddev, variance, min, max, countRows }

    struct Statistic {
        var kind: Kind
        var field: Int
    }

    var groupFields: [Int]
    var statistics: [Statistic]

    /// One record per group, ordered by the group values ascending (NULL first):
    /// the group values, then one value per statistic.
    func run(_ rows: [[AttributeValue]]) -> [(group: [AttributeValue], values: [AttributeValue])] {
        var groups: [[AttributeValue]: [[AttributeValue]]] = [:]
        for row in rows {
            groups[groupFields.map { row[$0] }, default: []].append(row)
        }
        if groupFields.isEmpty && groups.isEmpty { groups[[]] = [] }
        let keys = groups.keys.sorted { a, b in
            for (x, y) in zip(a, b) where x != y { return Self.less(x, y) }
            return false
        }
        return keys.map { key in
            let members = groups[key] ?? []
            return (key, statistics.map { Self.compute($0, members) })
        }
    }

    static func compute(_ statistic: Statistic, _ rows: [[AttributeValue]]) -> AttributeValue {
        let values = rows.map { $0[statistic.field] }.filter { $0 != .null }
        var numbers: [Double] = []
        for value in values {
            switch value {
            case .int(let i): numbers.append(Double(i))
            case .double(let x): numbers.append(x)
            default: break
            }
        }
        switch statistic.kind {
        case .countRows: return .int(Int64(rows.count))
        case .count: return .int(Int64(values.count))
        case .sum:
            if numbers.isEmpty { return .null }
            var total = 0.0
            for x in numbers { total += x }
            return .double(total)
        case .avg:
            if numbers.isEmpty { return .null }
            var total = 0.0
            for x in numbers { total += x }
            return .double(total / Double(numbers.count))
        case .variance, .stddev:
            if numbers.count < 2 { return .null }
            var total = 0.0
            for x in numbers { total += x }
            let mean = total / Double(numbers.count)
            var squares = 0.0
            for x in numbers { squares += (x - mean) * (x - mean) }
            let variance = squares / Double(numbers.count - 1)
            return .double(statistic.kind == .variance ? variance : variance.squareRoot())
        case .min:
            return values.dropFirst().reduce(values.first ?? .null) { less($1, $0) ? $1 : $0 }
        case .max:
            return values.dropFirst().reduce(values.first ?? .null) { less($0, $1) ? $1 : $0 }
        }
    }

    /// NULL < numbers < strings; numbers by value, strings by UTF-8 bytes, dates by milliseconds.
    static func less(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        case (.string, _): return false
        case (_, .string): return true
        case (.date(let x), .date(let y)): return x < y
        case (.int(let x), .int(let y)): return x < y
        default: return (a.doubleValue ?? 0) < (b.doubleValue ?? 0)
        }
    }
}
