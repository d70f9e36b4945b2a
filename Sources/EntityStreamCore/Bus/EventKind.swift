import EntityStreamModel

/// The kinds of events on the bus, by their JSON-lines names.
public enum EventKind: String, Sendable, Hashable, CaseIterable {
    case status
    case observation
    case entityReceived = "entity-received"
    case observationPurged = "observation-purged"
    case entityPurged = "entity-purged"
    case filter
    case error
    case response
    case dropped
    case analysis

    /// Parses a comma-separated list such as `observation,status` (`all` for
    /// every kind). Throws ``EventKindError/unknownKind(_:)`` naming an unknown kind.
    public static func parseList(_ text: String) throws(EventKindError) -> Set<EventKind> {
        var kinds: Set<EventKind> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingSpaces
            if name == "all" {
                kinds.formUnion(EventKind.allCases)
            } else if let kind = EventKind(rawValue: name) {
                kinds.insert(kind)
            } else {
                throw .unknownKind(name)
            }
        }
        return kinds
    }
}

/// An `--events` list that cannot be read, by what is wrong.
public enum EventKindError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A name that is no event kind (as written, trimmed).
    case unknownKind(String)

    public var description: String {
        switch self {
        case .unknownKind(let name):
            return "unknown event kind '\(name)' (expected \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")) or all)"
        }
    }
}
