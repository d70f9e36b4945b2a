/// How a WebSocket connection ended with a close handshake.
public struct CloseInfo: Sendable, Hashable, CustomStringConvertible {
    /// The close code (e.g. 1000, 1001, 4400); nil when the close frame had none.
    public var code: UInt16?
    /// The close reason text, possibly empty.
    public var reason: String
    /// True when the peer sent the first close frame.
    public var initiatedByPeer: Bool

    public init(code: UInt16?, reason: String, initiatedByPeer: Bool) {
        self.code = code
        self.reason = reason
        self.initiatedByPeer = initiatedByPeer
    }

    public var description: String {
        let who = initiatedByPeer ? "peer" : "we"
        let codeText = code.map(String.init) ?? "no code"
        return reason.isEmpty ? "\(who) closed (\(codeText))" : "\(who) closed (\(codeText): \(reason))"
    }
}
