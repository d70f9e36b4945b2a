/// A bounds-checked byte cursor over one JSON text: the shared core of
/// ``JSONParser`` and ``EsriFeatureDecoder``.
///
/// Every read goes through `position < count` checks (``byte(at:)`` returns 0,
/// which is never valid JSON outside a string, past the end), so no input can
/// make it read out of bounds. It borrows the caller's buffer and must not
/// outlive it. Internal; not thread-shared.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position: Int

    /// Fails for an empty buffer, which is never a JSON text.
    @inline(__always)
    init(_ buffer: UnsafeRawBufferPointer) throws(JSONError) {
        guard let start = buffer.baseAddress, buffer.count > 0 else {
            throw JSONError(offset: 0, message: "unexpected end of input; expected a JSON value", kind: .endedEarly)
        }
        base = start.assumingMemoryBound(to: UInt8.self)
        count = buffer.count
        position = 0
    }

    /// The byte at `index`, or 0 past the end.
    @inline(__always)
    func byte(at index: Int) -> UInt8 {
        index < count ? base[index] : 0
    }

    /// Skips JSON whitespace (space, tab, LF, CR) and returns the next byte
    /// without consuming it (0 at the end of input).
    @inline(__always)
    mutating func skipWhitespace() -> UInt8 {
        while position < count {
            let b = base[position]
            if b > ASCII.space { return b }
            guard b == ASCII.space || b == ASCII.newline || b == ASCII.carriageReturn || b == ASCII.tab else { return b }
            position += 1
        }
        return 0
    }

    // MARK: Errors

    func error(_ message: String, at offset: Int, kind: JSONError.Kind = .invalid) -> JSONError {
        JSONError(offset: offset, message: message, kind: kind)
    }

    /// "expected …" at the current position, or "unexpected end of input; expected …" there.
    func expected(_ what: String) -> JSONError {
        if position >= count {
            return JSONError(offset: count, message: "unexpected end of input; expected \(what)", kind: .endedEarly)
        }
        return JSONError(offset: position, message: "expected \(what)")
    }

    /// A well-formed value of the wrong kind was found (`next`, at `offset`,
    /// default `position`): `message` there. When `next` cannot begin a value the
    /// input is malformed, and the usual syntax error is returned instead.
    func mismatch(_ message: String, found next: UInt8, at offset: Int? = nil) -> JSONError {
        JSONScanner.startsValue(next) ? error(message, at: offset ?? position) : expected("a JSON value")
    }

    /// True for bytes that can begin a JSON value.
    static func startsValue(_ b: UInt8) -> Bool {
        switch b {
        case ASCII.quote, ASCII.minus, ASCII.zero...ASCII.nine, ASCII.t, ASCII.f, ASCII.n, ASCII.openBrace, ASCII.openBracket: return true
        default: return false
        }
    }

    /// After the top-level value: only whitespace may follow.
    mutating func expectEndOfInput() throws(JSONError) {
        _ = skipWhitespace()
        if position < count {
            throw error("unexpected data after the JSON value", at: position)
        }
    }

    /// Consumes `:` (after whitespace) between an object key and its value.
    @inline(__always)
    mutating func expectColon() throws(JSONError) {
        if skipWhitespace() == ASCII.colon {
            position += 1
            return
        }
        throw expected("':' after object key")
    }

    // MARK: Object members (for readers that walk known object shapes)

    /// Consumes the `{` at `position` and the whitespace after it. Returns
    /// false, having consumed the `}`, when the object is empty; else true,
    /// with `position` at the first key.
    @inline(__always)
    mutating func enterObject() -> Bool {
        position += 1
        if skipWhitespace() == ASCII.closeBrace {
            position += 1
            return false
        }
        return true
    }

    /// Scans an object key (at `position`) and the `:` after it.
    @inline(__always)
    mutating func scanKey() throws(JSONError) -> JSONStringToken {
        guard byte(at: position) == ASCII.quote else { throw expected("'\"' to begin an object key") }
        let token = try scanString()
        try expectColon()
        return token
    }

    /// After a member's value: consumes `,` and returns true (with `position`
    /// at the next key), or consumes `}` and returns false.
    @inline(__always)
    mutating func nextMember() throws(JSONError) -> Bool {
        let next = skipWhitespace()
        if next == ASCII.comma {
            position += 1
            _ = skipWhitespace()
            return true
        }
        guard next == ASCII.closeBrace else { throw expected("',' or '}' after object member") }
        position += 1
        return false
    }

    // MARK: Literals

    /// Consumes `true`, `false` or `null` at the current position; `first` is
    /// the byte there. Returns the literal's kind.
    @inline(__always)
    mutating func scanLiteral(_ first: UInt8) throws(JSONError) -> JSONLiteral {
        switch first {
        case ASCII.t:
            try expectLiteralBytes(0x6575_7274, length: 4, name: "true")   // "true"
            return .true
        case ASCII.f:
            guard byte(at: position + 4) == ASCII.e else { throw error("invalid literal; expected 'false'", at: position) }
            try expectLiteralBytes(0x736C_6166, length: 5, name: "false")  // "fals" + checked 'e'
            return .false
        default:
            try expectLiteralBytes(0x6C6C_756E, length: 4, name: "null")   // "null"
            return .null
        }
    }

    /// Checks that the 4 bytes at `position` equal `pattern` (little-endian)
    /// and advances by `length`.
    @inline(__always)
    private mutating func expectLiteralBytes(_ pattern: UInt32, length: Int, name: StaticString) throws(JSONError) {
        guard position + length <= count,
              UInt32(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self)) == pattern
        else {
            throw error("invalid literal; expected '\(name)'", at: position)
        }
        position += length
    }
}

/// One of the three JSON literal names.
enum JSONLiteral {
    case `true`, `false`, null
}

/// Byte constants used by the reader and writer.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
    static let colon: UInt8 = 0x3A
    static let upperA: UInt8 = 0x41
    static let upperZ: UInt8 = 0x5A
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let b: UInt8 = 0x62
    static let e: UInt8 = 0x65
    static let f: UInt8 = 0x66
    static let n: UInt8 = 0x6E
    static let r: UInt8 = 0x72
    static let t: UInt8 = 0x74
    static let u: UInt8 = 0x75
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- zero < 10 }

    /// ASCII lower-casing of A–Z only (what ArcGIS field-name comparison needs).
    @inline(__always) static func folded(_ b: UInt8) -> UInt8 { b &- upperA < 26 ? b | 0x20 : b }
}
