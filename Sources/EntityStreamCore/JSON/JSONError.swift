/// A JSON text was malformed, or well-formed but not what the reader expected.
///
/// `offset` is the byte offset into the input where the problem was found
/// (for "unexpected end of input" it equals the input's length); `message`
/// says what was expected there. It is a plain value: `Sendable`, `Hashable`.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset into the input where the problem is.
    public var offset: Int
    /// What was wrong or expected, e.g. "expected ',' or '}' after object member".
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// "invalid JSON at byte 123: expected ',' or '}' after object member".
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}
