import EntityStreamModel
/// Reads the times a CSV column carries into epoch milliseconds (UTC).
///
/// Text is ISO-8601 / RFC 3339 as ``Instant/parse(_:)`` reads it: a date,
/// optionally `T`/`t`/space and `HH:MM[:SS[.f…]]`, optionally `Z` or an
/// offset (`±HH:MM`, `±HHMM`, `±HH`); without an offset the time is UTC; a
/// date alone is midnight UTC. Numbers are epoch times whose unit is chosen
/// once per column by magnitude (see ``EpochUnit``). Every result lies in
/// ``Instant/range``. Stateless.
public enum CSVTime {
    /// Whether a numeric time column counts seconds or milliseconds since 1970.
    ///
    /// A column is milliseconds when its largest absolute value is at least
    /// 10¹¹ (as seconds that would be after the year 5000; as milliseconds
    /// it is March 1973 onward), otherwise seconds. So current epoch seconds
    /// (~1.7·10⁹) and milliseconds (~1.7·10¹²) are told apart reliably.
    public enum EpochUnit: Sendable, Hashable {
        case seconds, milliseconds

        public static let threshold: Double = 1e11

        public init(largestMagnitude: Double) {
            self = largestMagnitude >= Self.threshold ? .milliseconds : .seconds
        }
    }

    /// Epoch milliseconds for a numeric time `value` in `unit` (rounded to the
    /// millisecond), or nil when it is not finite or outside ``Instant/range``.
    public static func milliseconds(epoch value: Double, unit: EpochUnit) -> Int64? {
        let ms = (unit == .seconds ? value * 1000 : value).rounded()
        guard ms.isFinite, ms >= Double(Instant.range.lowerBound), ms <= Double(Instant.range.upperBound) else { return nil }
        return Int64(ms)
    }

    /// Epoch milliseconds for an integer epoch `value` in `unit`, exactly; nil outside ``Instant/range``.
    public static func milliseconds(epoch value: Int64, unit: EpochUnit) -> Int64? {
        let (ms, overflow) = unit == .milliseconds ? (value, false) : value.multipliedReportingOverflow(by: 1000)
        return !overflow && Instant.range.contains(ms) ? ms : nil
    }

    /// Epoch milliseconds for a date/time text (already trimmed), or nil when
    /// it is not one. A bare number is not a date text (see ``milliseconds(epoch:unit:)-(Double,_)``).
    public static func milliseconds(text: Substring) -> Int64? {
        // Cheap rejection first: every date text starts with four digits and a '-'.
        let utf8 = text.utf8
        guard utf8.count >= 10 else { return nil }
        var index = utf8.startIndex
        for _ in 0..<4 {
            guard utf8[index] >= 48, utf8[index] <= 57 else { return nil }
            index = utf8.index(after: index)
        }
        guard utf8[index] == UInt8(ascii: "-") else { return nil }
        return try? Instant.parse(String(text))
    }

    /// A column value as epoch milliseconds: a number in `unit`, else a date text; nil when neither.
    public static func milliseconds(_ trimmed: Substring, unit: EpochUnit) -> Int64? {
        if CSVNumber.classify(trimmed, allowLeadingZeros: true) != nil {
            if let integer = CSVNumber.integer(trimmed) { return milliseconds(epoch: integer, unit: unit) }
            return CSVNumber.double(trimmed).flatMap { milliseconds(epoch: $0, unit: unit) }
        }
        return milliseconds(text: trimmed)
    }
}
