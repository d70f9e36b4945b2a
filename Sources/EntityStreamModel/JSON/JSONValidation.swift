extension JSONScanner {
    /// Validates (and steps over) one complete JSON value starting after any
    /// whitespace at `position`, without building anything or allocating (up
    /// to 512 open containers). `depth` is the number of containers already
    /// open around this value; opening one more than `maxDepth` in total
    /// throws. Iterative, so deep input cannot exhaust the stack.
    mutating func skipValue(depth: Int, maxDepth: Int) throws(JSONError) {
        var next = skipWhitespace()
        if next != ASCII.openBracket && next != ASCII.openBrace {
            try skipScalar(next)
            return
        }
        var stack = JSONContainerStack()
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
                    } else {
                        try skipKeyAndColon(next)
                        next = skipWhitespace()
                        continue valueLoop
                    }
                } else {
                    if next == ASCII.closeBracket {
                        position += 1
                        stack.pop()
                    } else {
                        continue valueLoop
                    }
                }
            } else {
                try skipScalar(next)
            }
            // A value just ended: close containers until one continues.
            while !stack.isEmpty {
                next = skipWhitespace()
                let isObject = stack.topIsObject
                if next == ASCII.comma {
                    position += 1
                    next = skipWhitespace()
                    if isObject {
                        try skipKeyAndColon(next)
                        next = skipWhitespace()
                    }
                    continue valueLoop
                }
                if isObject {
                    guard next == ASCII.closeBrace else { throw expected("',' or '}' after object member") }
                } else {
                    guard next == ASCII.closeBracket else { throw expected("',' or ']' after array element") }
                }
                position += 1
                stack.pop()
            }
            return
        }
    }

    /// Steps over an object key and the colon after it; `next` is the byte at `position`.
    @inline(__always)
    mutating func skipKeyAndColon(_ next: UInt8) throws(JSONError) {
        guard next == ASCII.quote else { throw expected("'\"' to begin an object key") }
        _ = try scanString()
        try expectColon()
    }

    /// Validates a string, number or literal; `next` is the byte at `position`.
    @inline(__always)
    mutating func skipScalar(_ next: UInt8) throws(JSONError) {
        switch next {
        case ASCII.quote:
            _ = try scanString()
        case ASCII.minus, ASCII.zero...ASCII.nine:
            try skipNumber()
        case ASCII.t, ASCII.f, ASCII.n:
            _ = try scanLiteral(next)
        default:
            throw expected("a JSON value")
        }
    }

    static func depthError(maxDepth: Int, at offset: Int) -> JSONError {
        JSONError(offset: offset, message: "nesting depth exceeds the limit of \(maxDepth)")
    }
}
