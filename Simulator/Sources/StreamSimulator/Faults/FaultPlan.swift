/// The faults the simulator injects, to test clients' error handling.
/// Every fault is announced on stderr when it fires.
public struct FaultPlan: Sendable, Hashable {
    /// Abruptly drop each connection after this many messages (no close frame).
    public var dropAfter: Int?
    /// Close each connection with this code and reason: right after the
    /// upgrade, or after ``dropAfter`` messages when that is set.
    public var closeCode: (code: UInt16, reason: String)?
    /// Corrupt every Nth message on each connection.
    public var malformedEvery: Int?
    /// Stop sending for this many milliseconds after ``stallAfter`` messages.
    public var stallMilliseconds: Int64?
    public var stallAfter = 100
    /// Refuse the first N upgrades with HTTP 503.
    public var rejectFirst = 0
    /// Issue a new socket token every this many seconds, closing connections
    /// that use the old one with 4401.
    public var expireTokenAfterSeconds: Double?

    public init() {}

    public static func == (lhs: FaultPlan, rhs: FaultPlan) -> Bool {
        lhs.dropAfter == rhs.dropAfter && lhs.closeCode?.code == rhs.closeCode?.code && lhs.closeCode?.reason == rhs.closeCode?.reason
            && lhs.malformedEvery == rhs.malformedEvery && lhs.stallMilliseconds == rhs.stallMilliseconds
            && lhs.stallAfter == rhs.stallAfter && lhs.rejectFirst == rhs.rejectFirst
            && lhs.expireTokenAfterSeconds == rhs.expireTokenAfterSeconds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dropAfter)
        hasher.combine(closeCode?.code)
        hasher.combine(malformedEvery)
        hasher.combine(rejectFirst)
    }

    /// Parses `--close-code C[:reason]`.
    public static func parseCloseCode(_ text: String) throws(SimulatorError) -> (code: UInt16, reason: String) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let code = UInt16(parts[0]), (1000...4999).contains(code), code != 1005, code != 1006, code != 1015 else {
            throw .closeCode(text)
        }
        let reason = parts.count > 1 ? String(parts[1]) : ""
        guard reason.utf8.count <= 123 else { throw .closeReasonTooLong }
        return (code, reason)
    }
}
