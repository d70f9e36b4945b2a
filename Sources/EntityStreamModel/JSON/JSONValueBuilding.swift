extension JSONScanner {
    /// Parses one complete JSON value starting after any whitespace at
    /// `position` into a ``JSONValue``. `depth` is the number of containers
    /// already open around it (see ``skipValue(depth:maxDepth:)``). Iterative,
    /// so deep input cannot exhaust the stack.
    mutating func parseValue(depth: Int, maxDepth: Int) throws(JSONError) -> JSONValue {
        var next = skipWhitespace()
        if next != ASCII.openBracket && next != ASCII.openBrace {
            return try parseScalar(next)
        }
        // The open containers, innermost last: their kinds, and what each
        // holds so far in a stack of its own kind. Elements are appended in
        // place (`stack[last].append`), never through a copy of the
        // container, so building is linear in the input whatever its shape.
        var kinds = JSONContainerStack()
        var arrays: [[JSONValue]] = []
        var objects: [[JSONObject.Member]] = []
        var keys: [String] = []
        var value: JSONValue
        valueLoop: while true {
            if next == ASCII.openBracket || next == ASCII.openBrace {
                guard depth + kinds.depth < maxDepth else {
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
                    kinds.push(isObject: isObject)
                    if isObject {
                        objects.append([])
                        keys.append(try parseKeyAndColon(next))
                        next = skipWhitespace()
                    } else {
                        arrays.append([])
                    }
                    continue valueLoop
                }
            } else {
                value = try parseScalar(next)
            }
            // `value` is complete: add it to its container, closing containers
            // until one continues with ','.
            while !kinds.isEmpty {
                next = skipWhitespace()
                if kinds.topIsObject {
                    objects[objects.count - 1].append(JSONObject.Member(key: keys.removeLast(), value: value))
                    if next == ASCII.comma {
                        position += 1
                        next = skipWhitespace()
                        keys.append(try parseKeyAndColon(next))
                        next = skipWhitespace()
                        continue valueLoop
                    }
                    guard next == ASCII.closeBrace else { throw expected("',' or '}' after object member") }
                    value = .object(JSONObject(members: objects.removeLast()))
                } else {
                    arrays[arrays.count - 1].append(value)
                    if next == ASCII.comma {
                        position += 1
                        next = skipWhitespace()
                        continue valueLoop
                    }
                    guard next == ASCII.closeBracket else { throw expected("',' or ']' after array element") }
                    value = .array(arrays.removeLast())
                }
                kinds.pop()
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
