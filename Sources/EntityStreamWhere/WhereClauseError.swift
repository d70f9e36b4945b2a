/// Why a where clause was rejected: a syntax error, an unknown field or
/// function, an invalid literal, or a type mismatch detectable from the
/// schema's declared field types.
///
/// `position` is the **1-based Unicode scalar offset** into the clause text
/// of the offending token or operand (for "unexpected end" errors it is
/// one past the last scalar). `near` is a short excerpt of the text starting
/// at `position` (empty at the end of the text). A plain value type;
/// `Sendable`, `Hashable`, so tests can compare errors directly.
public struct WhereClauseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based Unicode scalar position in the clause text.
    public var position: Int
    /// What is wrong, e.g. `unknown field 'spede'`.
    public var message: String
    /// Up to ``nearLength`` scalars of the clause text starting at `position`
    /// ("…" appended when cut); empty when `position` is past the end.
    public var near: String

    /// How many scalars of context ``near`` keeps.
    public static let nearLength = 24

    public init(position: Int, message: String, near: String = "") {
        self.position = position
        self.message = message
        self.near = near
    }

    /// Builds an error whose ``near`` excerpt is cut from `scalars`.
    init(position: Int, message: String, in scalars: [Unicode.Scalar]) {
        self.position = position
        self.message = message
        let start = position - 1
        if start >= 0 && start < scalars.count {
            let end = min(scalars.count, start + Self.nearLength)
            var text = String(String.UnicodeScalarView(scalars[start..<end]))
            if end < scalars.count { text += "…" }
            self.near = text
        } else {
            self.near = ""
        }
    }

    /// `where clause error at position 12: unknown field 'spede' (near "spede > 0")`,
    /// or `… (at end of clause)` when there is no text left at `position`.
    public var description: String {
        let context = near.isEmpty ? "(at end of clause)" : "(near \"\(near)\")"
        return "where clause error at position \(position): \(message) \(context)"
    }
}
