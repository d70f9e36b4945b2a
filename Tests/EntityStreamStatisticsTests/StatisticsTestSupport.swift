@testable import EntityStreamStatistics
import EntityStreamModel
import EntityStreamWhere

/// A plain row: the value at index i is `values[i]` (NULL beyond).
struct TestRow: AttributeRow {
    var values: [AttributeValue]
    func value(at fieldIndex: Int) -> AttributeValue {
        values.indices.contains(fieldIndex) ? values[fieldIndex] : .null
    }
}

/// A row that also hands out identity words the way the entity store packs
/// values: strings by an interned id, numbers by their bits, so equal words
/// imply equal values (but `0.0`/`-0.0` and `1`/`1.0` have different words).
struct IdentityTestRow: IdentityKeyedRow {
    var values: [AttributeValue]
    var words: [UInt64]
    func value(at fieldIndex: Int) -> AttributeValue {
        values.indices.contains(fieldIndex) ? values[fieldIndex] : .null
    }
    func identityWord(at fieldIndex: Int) -> UInt64 {
        words.indices.contains(fieldIndex) ? words[fieldIndex] : 0
    }
}

/// Interns strings to ids and builds ``IdentityTestRow``s.
struct TestInterner {
    private var ids: [ExactText.Key: UInt64] = [:]

    mutating func row(_ values: [AttributeValue]) -> IdentityTestRow {
        IdentityTestRow(values: values, words: values.map { word($0) })
    }

    mutating func word(_ value: AttributeValue) -> UInt64 {
        switch value {
        case .null: return 0xFFF9 << 48
        case .bool(let flag): return 0xFFFA << 48 | (flag ? 1 : 0)
        case .int(let i): return 0xFFFB << 48 ^ UInt64(bitPattern: i) &* 3
        case .date(let ms): return 0xFFFC << 48 ^ UInt64(bitPattern: ms) &* 5
        case .double(let x): return x.isNaN ? 0x7FF8_0000_0000_0000 : x.bitPattern
        case .string(let text):
            if let id = ids[ExactText.Key(text)] { return 0xFFFD << 48 | id }
            let id = UInt64(ids.count)
            ids[ExactText.Key(text)] = id
            return 0xFFFD << 48 | id
        }
    }
}

/// The message `body` throws as a ``StatisticsError``, or nil when it does not throw.
func statisticsErrorMessage(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as StatisticsError {
        return error.description
    } catch {
        return "not a StatisticsError: \(error)"
    }
}

/// True when `a` and `b` agree to `tolerance` relative (absolute near zero).
func close(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    if a == b { return true }
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300)
}

extension AttributeValue {
    /// The double of a `.double`, else nil (no conversion).
    var double: Double? {
        if case .double(let x) = self { return x }
        return nil
    }
}
