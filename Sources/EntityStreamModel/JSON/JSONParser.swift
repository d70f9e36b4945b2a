/// Strict RFC 8259 JSON reader over UTF-8 bytes.
///
/// Accepts exactly the RFC 8259 grammar: any value at the top level, JSON
/// whitespace around it and nothing else after it (no byte-order mark, no
/// trailing commas, no comments). Strings must be valid UTF-8 without raw
/// control characters; `\u` escapes must form valid scalars (a lone or
/// mismatched surrogate escape is an error, as with JSONSerialization).
/// Numbers follow the grammar (no leading zeros, `+`, `.5` or `1.`); see
/// ``JSONValue`` for how they are typed. Opening more than `maxDepth` nested
/// arrays/objects is an error (`maxDepth` 512 accepts 512 levels, like
/// JSONSerialization). Every failure throws ``JSONError`` with the byte offset.
/// The readers are iterative, so no input can exhaust the stack; but a
/// ``JSONValue`` is destroyed recursively by Swift, so raise `maxDepth` for
/// ``parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` only moderately (a few
/// thousand levels); ``validate(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` has no such concern.
/// Stateless and thread-safe; nothing is retained from the input.
public enum JSONParser {
    /// Parses one JSON text into a ``JSONValue``.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(JSONError) -> JSONValue {
        var scanner = try JSONScanner(bytes)
        let value = try scanner.parseValue(depth: 0, maxDepth: maxDepth)
        try scanner.expectEndOfInput()
        return value
    }

    /// Parses one JSON text into a ``JSONValue``.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONError) in try parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Parses one JSON text, given as a String (its UTF-8), into a ``JSONValue``.
    public static func parse(_ text: String, maxDepth: Int = 512) throws(JSONError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONError) in try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Checks that `bytes` is one valid JSON text, exactly as ``parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)``
    /// would (same errors, same offsets), without building values. Allocates
    /// nothing unless `maxDepth` exceeds 512 and the input nests that deep.
    public static func validate(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(JSONError) {
        var scanner = try JSONScanner(bytes)
        try scanner.skipValue(depth: 0, maxDepth: maxDepth)
        try scanner.expectEndOfInput()
    }

    /// Checks that `bytes` is one valid JSON text (see ``validate(_:maxDepth:)-(UnsafeRawBufferPointer,_)``).
    public static func validate(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONError) in try validate(buffer, maxDepth: maxDepth) }
        }
        try result.get()
    }
}
