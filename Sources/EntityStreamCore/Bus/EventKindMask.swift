/// A set of event kinds as bits, tested per event without hashing: what a
/// subscriber's filter admits, and what the bus's subscribers want between
/// them (``union(_:)``), so the store can leave out events nobody would
/// receive. A plain value.
public struct EventKindMask: Sendable, Hashable {
    public private(set) var bits: UInt32

    public init(_ kinds: Set<EventKind>) {
        bits = kinds.reduce(0) { $0 | $1.bit }
    }

    /// Every kind.
    public static let all = EventKindMask(Set(EventKind.allCases))
    /// No kind.
    public static let none = EventKindMask([])

    @inline(__always)
    public func contains(_ kind: EventKind) -> Bool { bits & kind.bit != 0 }

    public func union(_ other: EventKindMask) -> EventKindMask {
        var result = self
        result.bits |= other.bits
        return result
    }
}

extension EventKind {
    /// One bit per kind, for masks.
    var bit: UInt32 {
        switch self {
        case .status: return 1 << 0
        case .observation: return 1 << 1
        case .entityReceived: return 1 << 2
        case .observationPurged: return 1 << 3
        case .entityPurged: return 1 << 4
        case .filter: return 1 << 5
        case .error: return 1 << 6
        case .response: return 1 << 7
        case .dropped: return 1 << 8
        case .analysis: return 1 << 9
        }
    }
}
