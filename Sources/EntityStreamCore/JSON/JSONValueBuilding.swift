extension JSONScanner {
    /// Parses one complete JSON value starting after any whitespace at
    /// `position` into a ``JSONValue``. `depth` is the number of containers
    /// already open around it (see ``skipValue(depth:maxDepth:)``). Iterative,
    /// so deep input cannot exhaust the stack.
    mutating func parseValue(depth: Int, maxDepth: Int) throws(JSONError) -> JSONValue {
        /// An open container and what it holds so far (an object also its pending key).
        enum Frame {
            case array([JSONValue])
            case object([JSONObject.Member], key: String)
        }
        var next = skipWhitespace()
        if next != ASCII.openBracket && next != ASCII.openBrace {
            return try parseScalar(next)
        }
        var frames: [Frame] = []
        var value: JSONValue
        valueLoop: while true {
            if next == ASCII.openBracket || next == ASCII.openBrace {
                guard depth + frames.count < maxDepth else {
                    throw JSONScanner.depthError(maxDepth: maxDepth, at: position)
                }
                let isObject = next == ASCII.openBrace
                position += 1
                next = skipWhitespace()
                if isObject && next == ASCII.closeBrace {
                    position += 1
                    value = .object(JSONObject())
                } else if !isObject && next == ASCII.closeBracket {
                    position += 1
                    value = .array([])
                } else {
                    if isObject {
                        frames.append(.object([], key: try parseKeyAndColon(next)))
                        next = skipWhitespace()
                    } else {
                        frames.append(.array([]))
                    }
                    continue valueLoop
                }
            } else {
                value = try parseScalar(next)
            }
            // `value` is complete: add it to its container, closing containers
            // until one continues with ','. (Frames are moved out and back, so
            // their arrays are never copied.)
            while let frame = frames.popLast() {
                next = skipWhitespace()
                switch frame {
                case .array(var elements):
                    elements.append(value)
                    if next == ASCII.comma {
                        position += 1
                        next = skipWhitespace()
                        frames.append(.array(elements))
                        continue valueLoop
                    }
                    guard next == ASCII.closeBracket else { throw expected("',' or ']' after array element") }
                    value = .array(elements)
                case .object(var members, let key):
                    members.append(JSONObject.Member(key: key, value: value))
                    if next == ASCII.comma {
                        position += 1
                        next = skipWhitespace()
                        frames.append(.object(members, key: try parseKeyAndColon(next)))
                        next = skipWhitespace()
                        continue valueLoop
                    }
                    guard next == ASCII.closeBrace else { throw expected("',' or '}' after object member") }
                    value = .object(JSONObject(members: members))
                }
                position += 1
            }
            return value
        }
    }

    /// Parses an object key and the colon after it; `next` is the byte at `position`.
    @inline(__always)
    mutating func parseKeyAndColon(_ next: UInt8) throws(JSONError) -> String {
        guard next == ASCII.quote else { throw expected("'\"' to begin an object key") }
        let key = decodeString(try scanString())
        try expectColon()
        return key
    }

    /// Parses a string, number or literal; `next` is the byte at `position`.
    @inline(__always)
    mutating func parseScalar(_ next: UInt8) throws(JSONError) -> JSONValue {
        switch next {
        case ASCII.quote:
            return .string(decodeString(try scanString()))
        case ASCII.minus, ASCII.zero...ASCII.nine:
            switch try scanNumber() {
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            }
        case ASCII.t, ASCII.f, ASCII.n:
            switch try scanLiteral(next) {
            case .true: return .bool(true)
            case .false: return .bool(false)
            case .null: return .null
            }
        default:
            throw expected("a JSON value")
        }
    }
}
