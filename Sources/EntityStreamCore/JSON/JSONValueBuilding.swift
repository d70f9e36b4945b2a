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
        var stack = JSONContainerStack()
        var openArrays: [[JSONValue]] = []
        var openObjects: [[JSONObject.Member]] = []
        var pendingKeys: [String] = []
        var value: JSONValue
        valueLoop: while true {
            if next == ASCII.openBracket || next == ASCII.openBrace {
                guard depth + stack.depth < maxDepth else {
                    throw JSONScanner.depthError(maxDepth: maxDepth, at: position)
                }
                let isObject = next == ASCII.openBrace
                stack.push(isObject: isObject)
                position += 1
                next = skipWhitespace()
                if isObject {
                    if next == ASCII.closeBrace {
                        position += 1
                        stack.pop()
                        value = .object(JSONObject())
                    } else {
                        pendingKeys.append(try parseKeyAndColon(next))
                        openObjects.append([])
                        next = skipWhitespace()
                        continue valueLoop
                    }
                } else {
                    if next == ASCII.closeBracket {
                        position += 1
                        stack.pop()
                        value = .array([])
                    } else {
                        openArrays.append([])
                        continue valueLoop
                    }
                }
            } else {
                value = try parseScalar(next)
            }
            // `value` is complete: add it to its container, closing containers
            // until one continues with ','.
            while !stack.isEmpty {
                let isObject = stack.topIsObject
                if isObject {
                    openObjects[openObjects.count - 1].append(JSONObject.Member(key: pendingKeys.removeLast(), value: value))
                } else {
                    openArrays[openArrays.count - 1].append(value)
                }
                next = skipWhitespace()
                if next == ASCII.comma {
                    position += 1
                    next = skipWhitespace()
                    if isObject {
                        pendingKeys.append(try parseKeyAndColon(next))
                        next = skipWhitespace()
                    }
                    continue valueLoop
                }
                if isObject {
                    guard next == ASCII.closeBrace else { throw expected("',' or '}' after object member") }
                    value = .object(JSONObject(members: openObjects.removeLast()))
                } else {
                    guard next == ASCII.closeBracket else { throw expected("',' or ']' after array element") }
                    value = .array(openArrays.removeLast())
                }
                position += 1
                stack.pop()
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
