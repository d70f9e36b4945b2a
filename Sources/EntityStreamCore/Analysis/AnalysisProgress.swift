import EntityStreamModel

/// What one `progress` line of an analysis says, as typed values: how far a
/// file scan has got, a layer's pages, a note, a geoprocessing job's status.
/// Each kind of progress has its own type; the output formats write
/// ``members`` (after `"phase"`, in order) and a terminal shows ``text``.
/// Conformers are value types.
public protocol AnalysisProgress: Sendable, Hashable {
    /// The progress line's members, in order.
    var members: JSONObject { get }
    /// The line as a terminal's progress shows it: `pages 3 · features 2000`.
    var text: String { get }
}

extension AnalysisProgress {
    /// `key value` for each member, joined by ` · ` (text unquoted).
    public var text: String { AnalysisProgressText.join(members) }
}

/// How progress reads on a terminal. Stateless.
public enum AnalysisProgressText {
    /// `key value` for each member, joined by ` · ` (text unquoted, other values as JSON).
    public static func join(_ members: JSONObject) -> String {
        join(members.map { ($0.key, $0.value.stringValue ?? "\($0.value)") })
    }

    /// `key value` for each part, joined by ` · `; a part with a nil key is its value alone.
    public static func join(_ parts: [(key: String?, value: String)]) -> String {
        parts.map { part in part.key.map { "\($0) \(part.value)" } ?? part.value }.joined(separator: " · ")
    }
}

/// A progress line's typed value, held by reference (an existential in the
/// event's payload would make every ``StreamEvent`` address-only, costlier
/// to move on the bus). Equal when the values are of one type and equal.
public struct AnyAnalysisProgress: Sendable, Hashable {
    private let box: ExistentialBox<any AnalysisProgress>

    public init(_ value: some AnalysisProgress) { box = ExistentialBox(value) }

    /// The progress, as its own type (`progress.value as? GPJobProgress`).
    public var value: any AnalysisProgress { box.value }

    public static func == (lhs: AnyAnalysisProgress, rhs: AnyAnalysisProgress) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(value))
    }
}
