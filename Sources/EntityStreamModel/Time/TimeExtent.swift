/// A time extent as ArcGIS queries use it: a start and an end in epoch
/// milliseconds (UTC), either of which may be open (nil).
///
/// Semantics are ArcGIS's default time relation, `esriTimeRelationOverlaps`:
/// both boundaries are inclusive. An instant feature at `t` matches when
/// `start ≤ t ≤ end`; an interval feature `[s, e]` matches when
/// `s ≤ end && e ≥ start`. A start equal to the end is an instant. An end
/// before the start is refused when the extent is made. A value type.
public struct TimeExtent: Sendable, Hashable, CustomStringConvertible {
    public let start: Int64?
    public let end: Int64?

    /// Throws when `end` is before `start`.
    public init(start: Int64?, end: Int64?) throws(TimeExtentError) {
        if let start, let end, end < start { throw .endBeforeStart(start: start, end: end) }
        self.start = start
        self.end = end
    }

    /// No bounds: every time matches (also features without a time).
    public static let unbounded = try! TimeExtent(start: nil, end: nil)

    public var isUnbounded: Bool { start == nil && end == nil }

    /// True when instant `t` lies in the extent (boundaries included).
    @inlinable public func contains(_ t: Int64) -> Bool {
        (start.map { t >= $0 } ?? true) && (end.map { t <= $0 } ?? true)
    }

    /// True when the interval `[from, to]` overlaps the extent (boundaries included).
    @inlinable public func overlaps(from: Int64, to: Int64) -> Bool {
        (end.map { from <= $0 } ?? true) && (start.map { to >= $0 } ?? true)
    }

    /// Parses a REST `time` parameter: `<ms>` (an instant) or `<start>,<end>`,
    /// each epoch milliseconds or `null`. The command line also accepts ISO-8601
    /// instants (``Instant/parse(_:)``) on either side.
    public static func parse(_ text: String) throws(TimeExtentError) -> TimeExtent {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        func bound(_ part: String) throws(TimeExtentError) -> Int64? {
            if part.isEmpty || part.lowercased() == "null" { return nil }
            do { return try Instant.parse(part) } catch { throw .instant(error) }
        }
        switch parts.count {
        case 1:
            guard let instant = try bound(parts[0]) else { return .unbounded }
            return try TimeExtent(start: instant, end: instant)
        case 2:
            return try TimeExtent(start: try bound(parts[0]), end: try bound(parts[1]))
        default:
            throw .notAnExtent(text)
        }
    }

    /// Parses a command line's `--time START,END`, refusing the forms that
    /// silently mean something else than they seem:
    /// - no comma (`--time 2000-09-01`): one instant, midnight only, would
    ///   match almost nothing; the user is asked for START,END (an instant
    ///   is START,START);
    /// - `--time ,`: open at both ends, which is no time filter at all
    ///   (rows without a time would match): the user is asked to omit it;
    /// - an end of exactly eight digits that reads as a calendar date
    ///   (`20240310`): epoch milliseconds of 1970, or that date? Refused with
    ///   both readings.
    /// Everything else is ``parse(_:)``.
    public static func parseArgument(_ text: String) throws(TimeExtentError) -> TimeExtent {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        if parts.count == 1 {
            throw .noComma(text)
        }
        if parts.count == 2 && parts.allSatisfy({ $0.isEmpty || $0.lowercased() == "null" }) {
            throw .openAtBothEnds(text)
        }
        for part in parts {
            guard part.utf8.count == 8, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let asDate = try? Instant.parse("\(part.prefix(4))-\(part.dropFirst(4).prefix(2))-\(part.suffix(2))"),
                  let asMilliseconds = Int64(part) else { continue }
            throw .ambiguousDigits(part, milliseconds: asMilliseconds, date: asDate)
        }
        return try parse(text)
    }

    /// The REST `time` parameter: `start,end` with `null` for an open end.
    public var restParameter: String {
        "\(start.map(String.init) ?? "null"),\(end.map(String.init) ?? "null")"
    }

    public var description: String { restParameter }
}

/// A time extent that could not be made, by what was wrong.
public enum TimeExtentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The end (epoch ms) is before the start.
    case endBeforeStart(start: Int64, end: Int64)
    /// One side is not an instant.
    case instant(InstantError)
    /// Not START,END or one instant (the text).
    case notAnExtent(String)
    /// `--time` without a comma (the text).
    case noComma(String)
    /// `--time` open at both ends (the text).
    case openAtBothEnds(String)
    /// Eight digits that read both as epoch ms and as a calendar date (epoch ms of its midnight).
    case ambiguousDigits(String, milliseconds: Int64, date: Int64)

    public var description: String {
        switch self {
        case .endBeforeStart(let start, let end): return "the end \(end) is before the start \(start)"
        case .instant(let error): return error.description
        case .notAnExtent(let text): return "a time extent is START,END or one instant, not '\(text)'"
        case .noComma(let text):
            return "'\(text)' has no comma: give START,END (either may be empty for an open end); for one instant give it twice, as \(text),\(text)"
        case .openAtBothEnds(let text):
            return "'\(text)' is open at both ends, which is no time filter (rows without a time would match too): leave --time out"
        case .ambiguousDigits(let part, let milliseconds, let midnight):
            let date = ISO8601Text.string(milliseconds: midnight).prefix(10)
            return "'\(part)' is ambiguous: epoch milliseconds (\(ISO8601Text.string(milliseconds: milliseconds))) or the date \(date)? Write the date as \(date), or the instant in ISO-8601"
        }
    }
}

extension TimeExtent {
    /// The extent as analysis summaries print it, the same in every command:
    /// `{"start": ISO-8601 or null, "end": ISO-8601 or null}`.
    public var summaryJSON: JSONValue {
        .object(JSONObject([("start", start.map { .string(ISO8601Text.string(milliseconds: $0)) } ?? .null),
                            ("end", end.map { .string(ISO8601Text.string(milliseconds: $0)) } ?? .null)]))
    }
}
