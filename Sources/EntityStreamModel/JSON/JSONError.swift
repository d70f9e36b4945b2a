/// A JSON text was malformed, or well-formed but not what the reader expected.
///
/// `offset` is the byte offset into the input where the problem was found
/// (for "unexpected end of input" it equals the input's length); `message`
/// says what was expected there; ``kind`` tells a text cut short from one
/// that is wrong, for callers that treat them apart (a truncated HTTP body).
/// It is a plain value: `Sendable`, `Hashable`.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Hashable {
        /// The text is wrong at ``offset`` (or well-formed but not what the reader expected).
        case invalid
        /// The input ended inside a value: an unterminated string or escape, or
        /// the end where a value or a separator was expected.
        case endedEarly
    }

    /// Byte offset into the input where the problem is.
    public var offset: Int
    /// What was wrong or expected, e.g. "expected ',' or '}' after object member".
    public var message: String
    public var kind: Kind

    public init(offset: Int, message: String, kind: Kind = .invalid) {
        self.offset = offset
        self.message = message
        self.kind = kind
    }

    /// "invalid JSON at byte 123: expected ',' or '}' after object member".
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}
