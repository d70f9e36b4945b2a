import EntityStreamModel
/// The literals of `field [NOT] IN (…)`, sorted once so that membership
/// costs O(log n) per row and building costs O(n log n) — a list of tens of
/// thousands of values compiles and evaluates quickly.
///
/// Gives exactly what comparing the value with each literal in turn gives
/// (``WhereValueOrder``): a match is `true` (`false` when negated); with no
/// match, `unknown` when the value is NULL, a NULL literal is listed, or
/// some literal has no order with the value (a string against numbers, NaN),
/// else `false` (`true` when negated). Strings compare by UTF-8 bytes;
/// numbers (ints, doubles, dates, booleans) exactly by value. A value type.
package struct WhereLiteralSet: Sendable, Hashable {
    /// Distinct string literals' UTF-8, in byte order.
    private let strings: [[UInt8]]
    /// Numeric-class literals other than NaN, in exact numeric order.
    private let numbers: [AttributeValue]
    private let hasNaN: Bool
    package let hasNull: Bool

    init(_ literals: [AttributeValue]) {
        var strings: [[UInt8]] = []
        var numbers: [AttributeValue] = []
        var hasNaN = false
        var hasNull = false
        for literal in literals {
            switch literal {
            case .null: hasNull = true
            case .string(let text): strings.append(Array(text.utf8))
            case .double(let number) where number.isNaN: hasNaN = true
            case .int, .double, .date, .bool: numbers.append(literal)
            }
        }
        strings.sort { $0.lexicographicallyPrecedes($1) }
        var distinct: [[UInt8]] = []
        distinct.reserveCapacity(strings.count)
        for string in strings where distinct.last != string { distinct.append(string) }
        numbers.sort { WhereValueOrder.compare($0, $1) == .less }
        self.strings = distinct
        self.numbers = numbers
        self.hasNaN = hasNaN
        self.hasNull = hasNull
    }

    /// The distinct string literals (in byte order).
    package var stringValues: [String] { strings.map { String(decoding: $0, as: UTF8.self) } }

    /// Every literal is a string (no number, NaN or NULL), and there is at least one.
    package var isOnlyStrings: Bool { !strings.isEmpty && numbers.isEmpty && !hasNaN && !hasNull }

    func evaluate(_ value: AttributeValue, negated: Bool) -> SQLTruth {
        let matched: Bool
        let sawUnknown: Bool
        switch value {
        case .null:
            return .unknown
        case .string(let text):
            matched = WhereUTF8.withBytes(text) { bytes in containsString(bytes) }
            sawUnknown = hasNull || hasNaN || !numbers.isEmpty
        case .double(let number) where number.isNaN:
            matched = false
            sawUnknown = hasNull || hasNaN || !numbers.isEmpty || !strings.isEmpty
        case .int, .double, .date, .bool:
            matched = containsNumber(value)
            sawUnknown = hasNull || hasNaN || !strings.isEmpty
        }
        if matched { return negated ? .false : .true }
        if sawUnknown { return .unknown }
        return negated ? .true : .false
    }

    private func containsString(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var low = 0, high = strings.count
        while low < high {
            let middle = (low + high) / 2
            switch Self.compare(strings[middle], bytes) {
            case .equal: return true
            case .less: low = middle + 1
            case .greater: high = middle
            }
        }
        return false
    }

    private func containsNumber(_ value: AttributeValue) -> Bool {
        var low = 0, high = numbers.count
        while low < high {
            let middle = (low + high) / 2
            switch WhereValueOrder.compare(numbers[middle], value) {
            case .equal?: return true
            case .less?: low = middle + 1
            case .greater?, nil: high = middle
            }
        }
        return false
    }

    private static func compare(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> WhereValueOrder.Order {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            if a[i] != b[i] { return a[i] < b[i] ? .less : .greater }
            i += 1
        }
        return a.count < b.count ? .less : (a.count == b.count ? .equal : .greater)
    }
}
