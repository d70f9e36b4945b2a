/// Where the parts of a JSON text are, without rebuilding them: for readers
/// that must pass values on byte for byte (a recording's messages, the
/// elements of a feature array), as a service sent them.
///
/// Both functions validate the whole text exactly as
/// ``JSONParser/parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` does and
/// throw the same ``JSONError`` (with its byte offset) where it would, or
/// when the top-level value is not of the kind asked for. Stateless.
extension JSONParser {
    /// The byte range of each element of the top-level array, in order.
    public static func elementRanges(ofArray bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(JSONError) -> [Range<Int>] {
        var scanner = try JSONScanner(bytes)
        let first = scanner.skipWhitespace()
        guard first == ASCII.openBracket else { throw scanner.mismatch("expected a JSON array", found: first) }
        scanner.position += 1
        var ranges: [Range<Int>] = []
        if scanner.skipWhitespace() == ASCII.closeBracket {
            scanner.position += 1
        } else {
            while true {
                _ = scanner.skipWhitespace()
                let start = scanner.position
                try scanner.skipValue(depth: 1, maxDepth: maxDepth)
                ranges.append(start..<scanner.position)
                let next = scanner.skipWhitespace()
                if next == ASCII.comma {
                    scanner.position += 1
                    continue
                }
                guard next == ASCII.closeBracket else { throw scanner.expected("',' or ']' after array element") }
                scanner.position += 1
                break
            }
        }
        try scanner.expectEndOfInput()
        return ranges
    }

    /// Each member of the top-level object: its decoded key and the byte
    /// range of its value, in order (duplicate keys included).
    public static func memberRanges(ofObject bytes: UnsafeRawBufferPointer, maxDepth: Int = 512) throws(JSONError) -> [(key: String, value: Range<Int>)] {
        var scanner = try JSONScanner(bytes)
        let first = scanner.skipWhitespace()
        guard first == ASCII.openBrace else { throw scanner.mismatch("expected a JSON object", found: first) }
        var members: [(key: String, value: Range<Int>)] = []
        if scanner.enterObject() {
            repeat {
                let key = scanner.decodeString(try scanner.scanKey())
                _ = scanner.skipWhitespace()
                let start = scanner.position
                try scanner.skipValue(depth: 1, maxDepth: maxDepth)
                members.append((key, start..<scanner.position))
            } while try scanner.nextMember()
        }
        try scanner.expectEndOfInput()
        return members
    }

    /// The byte range of each element of the top-level array (see ``elementRanges(ofArray:maxDepth:)-(UnsafeRawBufferPointer,_)``).
    public static func elementRanges(ofArray bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> [Range<Int>] {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONError) in try elementRanges(ofArray: buffer, maxDepth: maxDepth) } }.get()
    }

    /// Each member of the top-level object (see ``memberRanges(ofObject:maxDepth:)-(UnsafeRawBufferPointer,_)``).
    public static func memberRanges(ofObject bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> [(key: String, value: Range<Int>)] {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONError) in try memberRanges(ofObject: buffer, maxDepth: maxDepth) } }.get()
    }
}
